// Replays the fuzzers' seed corpora through the same entry points the fuzz targets call, so CI
// (and its ASan build) covers every seed without libFuzzer.
#include <gtest/gtest.h>

#include <dirent.h>

#include <string>
#include <vector>

#include "src/serialize/torch_format_internal.h"
#include "tests/serialize/torch_format_test_util.h"

namespace {

std::vector<std::string> torch_corpus_files(const std::string& target) {
  const std::string dir = std::string(EMBER_SOURCE_DIR) + "/tests/fuzz_parsers/corpus/" + target;
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    }
    closedir(d);
  }
  return out;
}

TEST(TorchFormatCorpus, TorchPtSeedsReplay) {
  const auto files = torch_corpus_files("torch_pt");
  ASSERT_GE(files.size(), 5u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const std::vector<char> bytes = torch_format_test::read_bytes(f);
    ember::serialize::detail::fuzz_torch_pt_input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                  bytes.size());
  }
}

TEST(TorchFormatCorpus, PickleSeedsReplay) {
  const auto files = torch_corpus_files("pickle");
  ASSERT_GE(files.size(), 5u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const std::vector<char> bytes = torch_format_test::read_bytes(f);
    ember::serialize::detail::fuzz_pickle_input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                bytes.size());
  }
}

}  // namespace
