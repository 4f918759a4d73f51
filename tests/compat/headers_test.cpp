// The list of public LibTorch header paths (libtorch_headers.txt, see list_libtorch_headers.sh)
// holds what it must. That each path has its header in include/ember/compat is checked when the
// tests are configured (tests/CMakeLists.txt lists every missing one) and when test_compat compiles
// the generated file that includes them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace {

// The paths in the list: a '#' starts a comment, blank lines are skipped.
std::vector<std::string> libtorch_header_paths() {
  std::ifstream in(EMBER_LIBTORCH_HEADER_LIST);
  EXPECT_TRUE(in) << "cannot read " << EMBER_LIBTORCH_HEADER_LIST;
  std::vector<std::string> paths;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const size_t last = line.find_last_not_of(" \t\r");
    paths.push_back(line.substr(first, last - first + 1));
  }
  return paths;
}

}  // namespace

TEST(CompatHeaders, ListHasTheFrontendAndTheC10Headers) {
  const std::vector<std::string> paths = libtorch_header_paths();
  EXPECT_GE(paths.size(), 180u);  // 152 frontend headers in LibTorch 1.13, then the rest
  for (const char* expected :
       {"torch/torch.h", "torch/nn/modules/conv.h", "torch/data/dataloader.h", "torch/script.h",
        "ATen/ATen.h", "c10/util/irange.h", "c10/util/Exception.h", "c10/core/ScalarType.h"}) {
    EXPECT_NE(std::find(paths.begin(), paths.end(), expected), paths.end()) << expected;
  }
  for (const std::string& path : paths) {
    EXPECT_EQ(path.rfind("torch/python", 0), std::string::npos) << path << " needs CPython";
  }
}
