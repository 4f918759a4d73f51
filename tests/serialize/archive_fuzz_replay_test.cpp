// Replays tests/fuzz_parsers/corpus/archive/ through the archive fuzz target's own entry function,
// so every CI build (ASan included) runs the seeds: each must load or throw ember::Error, and
// round-trip unchanged when it loads (the target aborts otherwise).
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define EMBER_FUZZ_ARCHIVE_ENTRY ember_fuzz_replay_archive
#include "tests/fuzz_parsers/archive_fuzz.cpp"
#undef EMBER_FUZZ_ARCHIVE_ENTRY

namespace {

std::vector<std::string> archive_replay_files() {
  const std::string dir = std::string(EMBER_SOURCE_DIR) + "/tests/fuzz_parsers/corpus/archive";
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(FuzzReplay, ArchiveCorpus) {
  const std::vector<std::string> files = archive_replay_files();
  ASSERT_GE(files.size(), 3u) << "seed corpus missing";
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    EXPECT_EQ(
        ember_fuzz_replay_archive(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0);
  }
}
