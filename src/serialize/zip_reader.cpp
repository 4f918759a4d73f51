#include "src/serialize/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "src/core/check.h"

namespace ember::serialize::detail {

namespace {

constexpr uint32_t kZipLocalSig = 0x04034b50;
constexpr uint32_t kZipCentralSig = 0x02014b50;
constexpr uint32_t kZipEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint64_t kZipEndSize = 22, kZip64LocatorSize = 20, kZip64EndSize = 56;
constexpr uint64_t kZipCentralSize = 46, kZipLocalSize = 30;

uint64_t zip_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// a + b <= limit, without wrapping.
bool zip_fits(uint64_t a, uint64_t b, uint64_t limit) { return a <= limit && b <= limit - a; }

}  // namespace

ZipReader::ZipReader(const uint8_t* data, size_t size, std::string source)
    : data_(data), size_(size), source_(std::move(source)) {
  parse();
}

void ZipReader::parse() {
  EMBER_CHECK(size_ >= kZipEndSize,
              "zip: '{}' is {} bytes, too short for a zip archive (a truncated file?)", source_,
              size_);
  // The end record sits in the last 22 + 65535 bytes (it may be followed by a comment).
  uint64_t end = size_ - kZipEndSize;
  const uint64_t lowest = size_ - kZipEndSize > 0xFFFF ? size_ - kZipEndSize - 0xFFFF : 0;
  while (zip_le(data_ + end, 4) != kZipEndSig) {
    EMBER_CHECK(end > lowest,
                "zip: '{}' has no end of central directory record (not a zip archive, or a "
                "truncated one)",
                source_);
    --end;
  }
  const uint8_t* e = data_ + end;
  uint64_t entries = zip_le(e + 10, 2), cd_size = zip_le(e + 12, 4), cd_offset = zip_le(e + 16, 4);
  EMBER_CHECK(zip_le(e + 4, 2) == 0 && zip_le(e + 6, 2) == 0,
              "zip: '{}' is a multi-disk archive, which is not supported", source_);
  uint64_t cd_limit = end;  // the central directory ends before the end record(s)
  if (end >= kZip64LocatorSize && zip_le(data_ + end - kZip64LocatorSize, 4) == kZip64LocatorSig) {
    const uint8_t* loc = data_ + end - kZip64LocatorSize;
    const uint64_t z64 = zip_le(loc + 8, 8);
    cd_limit = end - kZip64LocatorSize;
    EMBER_CHECK(zip_fits(z64, kZip64EndSize, cd_limit) && zip_le(data_ + z64, 4) == kZip64EndSig,
                "zip: '{}': the zip64 end record offset {} is out of bounds or does not hold a "
                "zip64 end record ({} bytes before the locator)",
                source_, z64, cd_limit);
    const uint8_t* z = data_ + z64;
    entries = zip_le(z + 32, 8);
    cd_size = zip_le(z + 40, 8);
    cd_offset = zip_le(z + 48, 8);
    cd_limit = z64;
  }
  EMBER_CHECK(zip_fits(cd_offset, cd_size, cd_limit),
              "zip: '{}': the central directory (offset {}, {} bytes) lies outside the {} bytes "
              "before its end record (a truncated or corrupt file)",
              source_, cd_offset, cd_size, cd_limit);
  // Each central entry takes at least 46 bytes: check the count before reserving for it.
  EMBER_CHECK(entries <= cd_size / kZipCentralSize,
              "zip: '{}': {} records cannot fit in a central directory of {} bytes", source_,
              entries, cd_size);
  records_.reserve(entries);
  uint64_t pos = cd_offset;
  for (uint64_t i = 0; i < entries; ++i) read_central_entry(pos, cd_offset + cd_size);
}

void ZipReader::read_central_entry(uint64_t& pos, uint64_t cd_end) {
  EMBER_CHECK(zip_fits(pos, kZipCentralSize, cd_end) && zip_le(data_ + pos, 4) == kZipCentralSig,
              "zip: '{}': central directory entry {} at offset {} is truncated or corrupt", source_,
              records_.size(), pos);
  const uint8_t* c = data_ + pos;
  const uint64_t flags = zip_le(c + 8, 2), method = zip_le(c + 10, 2);
  const auto crc = static_cast<uint32_t>(zip_le(c + 16, 4));
  uint64_t csize = zip_le(c + 20, 4), usize = zip_le(c + 24, 4);
  const uint64_t name_len = zip_le(c + 28, 2), extra_len = zip_le(c + 30, 2);
  const uint64_t comment_len = zip_le(c + 32, 2);
  uint64_t local = zip_le(c + 42, 4);
  const uint64_t var_len = name_len + extra_len + comment_len;
  EMBER_CHECK(zip_fits(pos + kZipCentralSize, var_len, cd_end),
              "zip: '{}': central directory entry {} at offset {} runs past the directory", source_,
              records_.size(), pos);
  std::string name(reinterpret_cast<const char*>(c + kZipCentralSize), name_len);
  // zip64 extra field: the 8-byte values of the fields whose 32-bit slot holds 0xFFFFFFFF.
  const uint8_t* x = c + kZipCentralSize + name_len;
  for (uint64_t i = 0; i + 4 <= extra_len;) {
    const uint64_t id = zip_le(x + i, 2), len = zip_le(x + i + 2, 2);
    EMBER_CHECK(i + 4 + len <= extra_len, "zip: '{}': record '{}' has a corrupt extra field",
                source_, name);
    if (id == 0x0001) {
      uint64_t at = i + 4;
      for (uint64_t* field : {&usize, &csize, &local}) {
        if (*field != 0xFFFFFFFF) continue;
        EMBER_CHECK(at + 8 <= i + 4 + len, "zip: '{}': record '{}' has a short zip64 field",
                    source_, name);
        *field = zip_le(x + at, 8);
        at += 8;
      }
    }
    i += 4 + len;
  }
  pos += kZipCentralSize + var_len;
  EMBER_CHECK((flags & 1) == 0, "zip: '{}': record '{}' is encrypted", source_, name);
  EMBER_CHECK(method == 0 && csize == usize,
              "zip: '{}': record '{}' is compressed (method {}); torch.save writes stored "
              "records only",
              source_, name, method);
  EMBER_CHECK(zip_fits(local, kZipLocalSize, size_) && zip_le(data_ + local, 4) == kZipLocalSig,
              "zip: '{}': record '{}' has its local header at offset {}, past the end of the {} "
              "byte file or not a local header",
              source_, name, local, size_);
  const uint8_t* l = data_ + local;
  const uint64_t lname = zip_le(l + 26, 2), lextra = zip_le(l + 28, 2);
  const uint64_t data_offset = local + kZipLocalSize + lname + lextra;
  EMBER_CHECK(lname == name_len && data_offset <= size_ &&
                  std::memcmp(l + kZipLocalSize, name.data(), name_len) == 0,
              "zip: '{}': the local header of record '{}' (offset {}) does not match its "
              "central directory entry",
              source_, name, local);
  EMBER_CHECK(zip_fits(data_offset, usize, size_),
              "zip: '{}': record '{}' ({} bytes at offset {}) runs past the end of the {} byte "
              "file (a truncated file?)",
              source_, name, usize, data_offset, size_);
  EMBER_CHECK(index_.emplace(name, records_.size()).second, "zip: '{}': record '{}' appears twice",
              source_, name);
  records_.push_back(ZipRecord{std::move(name), data_offset, usize, crc});
}

const ZipRecord* ZipReader::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &records_[it->second];
}

const uint8_t* ZipReader::read(const ZipRecord& record) const {
  const uint8_t* p = data_ + record.data_offset;
  // zlib's crc32 takes a uInt length: feed it in chunks.
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < record.size;) {
    const uint64_t n = std::min<uint64_t>(record.size - done, 1u << 30);
    crc = crc32(crc, p + done, static_cast<uInt>(n));
    done += n;
  }
  EMBER_CHECK(crc == record.crc32,
              "zip: '{}': record '{}' fails its CRC32 check (stored {:08x}, computed {:08x}): "
              "the file is corrupt",
              source_, record.name, record.crc32, static_cast<uint32_t>(crc));
  return p;
}

}  // namespace ember::serialize::detail
