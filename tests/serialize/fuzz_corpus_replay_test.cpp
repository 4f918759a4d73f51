// Replays every seed corpus of tests/fuzz_parsers/corpus/<target>/ through the entry function its
// fuzz target calls, so every CI build (ASan included) runs the seeds without libFuzzer: each seed
// must load or throw ember::Error (the safetensors and archive targets also abort when a file that
// loads does not round-trip unchanged).
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "src/serialize/torch_format_internal.h"

#define EMBER_FUZZ_ARCHIVE_ENTRY ember_fuzz_replay_archive
#include "tests/fuzz_parsers/archive_fuzz.cpp"
#undef EMBER_FUZZ_ARCHIVE_ENTRY
#define EMBER_FUZZ_SAFETENSORS_ENTRY ember_fuzz_replay_safetensors
#include "tests/fuzz_parsers/safetensors_fuzz.cpp"
#undef EMBER_FUZZ_SAFETENSORS_ENTRY

namespace fuzz_corpus_replay {

// Runs `entry` over every file of the target's corpus (sorted); at least `min_seeds` must exist.
void replay(const std::string& target, size_t min_seeds,
            const std::function<void(const uint8_t*, size_t)>& entry) {
  const std::string dir = std::string(EMBER_SOURCE_DIR) + "/tests/fuzz_parsers/corpus/" + target;
  std::vector<std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') files.push_back(dir + "/" + e->d_name);
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), min_seeds) << "seed corpus " << dir << " missing";
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
}

TEST(FuzzCorpusReplay, Safetensors) {
  replay("safetensors", 20, [](const uint8_t* data, size_t size) {
    EXPECT_EQ(ember_fuzz_replay_safetensors(data, size), 0);
  });
}

TEST(FuzzCorpusReplay, Archive) {
  replay("archive", 3, [](const uint8_t* data, size_t size) {
    EXPECT_EQ(ember_fuzz_replay_archive(data, size), 0);
  });
}

TEST(FuzzCorpusReplay, TorchPt) {
  replay("torch_pt", 5, &ember::serialize::detail::fuzz_torch_pt_input);
}

TEST(FuzzCorpusReplay, Pickle) {
  replay("pickle", 5, &ember::serialize::detail::fuzz_pickle_input);
}

}  // namespace fuzz_corpus_replay
