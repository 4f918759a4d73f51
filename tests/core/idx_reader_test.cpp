// read_idx and the MNIST data set on files it writes: good ones, and the hostile or malformed ones
// an API fuzzer tried (issue #14): a header that claims more data than the file has must cost
// nothing, sizes whose product overflows, trailing bytes, and MNIST files that are not 28x28
// images with labels 0-9.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;

namespace {

namespace fs = std::filesystem;

// An IDX file of unsigned bytes: magic 0x0000 08 <ndim>, big-endian uint32 sizes, then `data`.
void write_idx(const fs::path& path, const std::vector<uint32_t>& sizes,
               const std::vector<uint8_t>& data) {
  std::ofstream f(path, std::ios::binary);
  const unsigned char magic[4] = {0, 0, 0x08, static_cast<unsigned char>(sizes.size())};
  f.write(reinterpret_cast<const char*>(magic), 4);
  for (uint32_t s : sizes) {
    const unsigned char b[4] = {static_cast<unsigned char>(s >> 24),
                                static_cast<unsigned char>(s >> 16),
                                static_cast<unsigned char>(s >> 8), static_cast<unsigned char>(s)};
    f.write(reinterpret_cast<const char*>(b), 4);
  }
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    path = fs::temp_directory_path() /
           ("ember-idx-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

TEST(IdxReader, ReadsAGoodFile) {
  ScratchDir dir;
  write_idx(dir.file("a"), {2, 3}, {1, 2, 3, 4, 5, 255});
  Tensor t = data::read_idx(dir.file("a"));
  EXPECT_EQ(t.dtype(), kByte);
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t[1][2].item<int64_t>(), 255);
}

TEST(IdxReader, HostileAndMalformedHeaders) {
  ScratchDir dir;
  // Claims 2^62 bytes, has 3: an Error about truncation, without trying the allocation.
  write_idx(dir.file("huge"), {1u << 31, 1u << 31}, {1, 2, 3});
  expect_error<Error>([&] { data::read_idx(dir.file("huge")); }, {"read_idx", "truncated"});
  // Four sizes of 2^32 - 1: their product overflows int64.
  write_idx(dir.file("overflow"), {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {});
  expect_error<ValueError>([&] { data::read_idx(dir.file("overflow")); }, {"read_idx", "2^63"});
  write_idx(dir.file("extra"), {2}, {1, 2, 3});
  expect_error<Error>([&] { data::read_idx(dir.file("extra")); }, {"read_idx", "past"});
  write_idx(dir.file("short"), {4}, {1, 2});
  expect_error<Error>([&] { data::read_idx(dir.file("short")); }, {"truncated"});
  expect_error<Error>([&] { data::read_idx(dir.file("missing")); }, {"cannot open"});
}

TEST(IdxReader, MnistChecksImageSizesAndLabels) {
  ScratchDir dir;
  const std::vector<uint8_t> two_images(2 * 28 * 28, 128);
  write_idx(dir.file("train-images-idx3-ubyte"), {2, 28, 28}, two_images);
  write_idx(dir.file("train-labels-idx1-ubyte"), {2}, {3, 9});
  data::datasets::MNIST good(dir.path.string());
  EXPECT_EQ(good.images().sizes().vec(), (std::vector<int64_t>{2, 1, 28, 28}));
  EXPECT_EQ(good.targets()[1].item<int64_t>(), 9);

  write_idx(dir.file("train-labels-idx1-ubyte"), {2}, {3, 10});
  expect_error<Error>([&] { data::datasets::MNIST(dir.path.string()); }, {"MNIST", "labels"});

  write_idx(dir.file("train-images-idx3-ubyte"), {2, 27, 29}, std::vector<uint8_t>(2 * 27 * 29, 0));
  write_idx(dir.file("train-labels-idx1-ubyte"), {2}, {3, 9});
  expect_error<Error>([&] { data::datasets::MNIST(dir.path.string()); },
                      {"MNIST", "[2, 27, 29]", "28, 28"});
}

}  // namespace
