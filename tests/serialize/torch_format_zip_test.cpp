// The zip container on its own: the writer's layout and the reader's zip64 end records.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/serialize/pickle.h"
#include "src/serialize/zip_reader.h"
#include "src/serialize/zip_writer.h"
#include "tests/support/expect_error.h"

namespace {

std::vector<char> zip_of(const std::vector<std::pair<std::string, std::string>>& records) {
  std::vector<char> out;
  ember::serialize::detail::ZipWriter zip([&](const void* p, size_t n) {
    out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
  });
  for (const auto& [name, data] : records) zip.add(name, data.data(), data.size());
  zip.finish();
  return out;
}

void zip_put_le(std::vector<char>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t zip_get_le(const std::vector<char>& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}

// Rewrites a zip's end record as zip64 end record + locator + an end record of 0xFF..FF fields.
std::vector<char> as_zip64(std::vector<char> bytes, uint64_t locator_target_shift = 0) {
  const size_t end = bytes.size() - 22;
  const uint64_t entries = zip_get_le(bytes, end + 10, 2), cd_size = zip_get_le(bytes, end + 12, 4),
                 cd_offset = zip_get_le(bytes, end + 16, 4);
  bytes.resize(end);
  zip_put_le(bytes, 0x06064b50, 4);
  zip_put_le(bytes, 44, 8);
  zip_put_le(bytes, 45, 2);
  zip_put_le(bytes, 45, 2);
  zip_put_le(bytes, 0, 8);
  zip_put_le(bytes, entries, 8);
  zip_put_le(bytes, entries, 8);
  zip_put_le(bytes, cd_size, 8);
  zip_put_le(bytes, cd_offset, 8);
  zip_put_le(bytes, 0x07064b50, 4);
  zip_put_le(bytes, 0, 4);
  zip_put_le(bytes, end + locator_target_shift, 8);
  zip_put_le(bytes, 1, 4);
  zip_put_le(bytes, 0x06054b50, 4);
  zip_put_le(bytes, 0, 4);
  zip_put_le(bytes, 0xFFFF, 2);
  zip_put_le(bytes, 0xFFFF, 2);
  zip_put_le(bytes, 0xFFFFFFFF, 4);
  zip_put_le(bytes, 0xFFFFFFFF, 4);
  zip_put_le(bytes, 0, 2);
  return bytes;
}

const std::vector<std::pair<std::string, std::string>> kZipTestRecords = {
    {"archive/data.pkl", std::string("\x80\x02K\x2a.")},
    {"archive/data/0", std::string(100, 'x')},
    {"archive/version", "3\n"}};

TEST(TorchFormatZip, WriterAlignsEveryRecordTo64Bytes) {
  const std::vector<char> bytes = zip_of(kZipTestRecords);
  ember::serialize::detail::ZipReader zip(reinterpret_cast<const uint8_t*>(bytes.data()),
                                          bytes.size(), "test.zip");
  ASSERT_EQ(zip.records().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const auto& r = zip.records()[i];
    EXPECT_EQ(r.name, kZipTestRecords[i].first);
    EXPECT_EQ(r.data_offset % 64, 0u) << r.name;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(zip.read(r)), r.size),
              kZipTestRecords[i].second);
  }
  EXPECT_EQ(zip.find("archive/nothing"), nullptr);
  EXPECT_EQ(ember::pickle_load(bytes).toInt(), 42);
}

TEST(TorchFormatZip, ReadsZip64EndRecords) {
  const std::vector<char> bytes = as_zip64(zip_of(kZipTestRecords));
  ember::serialize::detail::ZipReader zip(reinterpret_cast<const uint8_t*>(bytes.data()),
                                          bytes.size(), "test.zip");
  EXPECT_EQ(zip.records().size(), 3u);
  EXPECT_EQ(ember::pickle_load(bytes).toInt(), 42);
  const std::vector<char> bad = as_zip64(zip_of(kZipTestRecords), 1000);
  ember_test::expect_error([&] { ember::pickle_load(bad); },
                           {"zip64 end record offset", "out of bounds"});
}

TEST(TorchFormatZip, DuplicateRecordsAreRefused) {
  ember_test::expect_error([] { zip_of({{"a", "1"}, {"a", "2"}}); }, {"record 'a' added twice"});
}

TEST(TorchFormatZip, ZipWithoutDataPkl) {
  ember_test::expect_error(
      [] {
        ember::pickle_load(zip_of({{"x/other", "1"}}));
      },
      {"no '<archive>/data.pkl' record"});
}

}  // namespace
