#include "src/serialize/zip_writer.h"

#include <zlib.h>

#include <algorithm>

#include "src/core/check.h"

namespace ember::serialize::detail {

namespace {

constexpr uint64_t kZipAlign = 64;  // PyTorch's alignment of record data
constexpr uint64_t kZip32Max = 0xFFFFFFFF;

// Little-endian fields appended to a header buffer.
struct ZipBytes {
  std::vector<uint8_t> b;
  void u(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void s(const std::string& str) { b.insert(b.end(), str.begin(), str.end()); }
};

uint32_t zip_crc32(const void* data, size_t size) {
  const auto* p = static_cast<const Bytef*>(data);
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < size;) {
    const size_t n = std::min<size_t>(size - done, 1u << 30);
    crc = crc32(crc, p + done, static_cast<uInt>(n));
    done += n;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

ZipWriter::ZipWriter(std::function<void(const void*, size_t)> sink) : sink_(std::move(sink)) {}

void ZipWriter::put(const void* data, size_t size) {
  if (size > 0) sink_(data, size);
  offset_ += size;
}

void ZipWriter::add(const std::string& name, const void* data, size_t size) {
  EMBER_CHECK(!finished_, "zip: add('{}') after finish()", name);
  EMBER_CHECK(name.size() <= 0xFFFF, "zip: record name of {} bytes is too long", name.size());
  for (const Entry& e : entries_) EMBER_CHECK(e.name != name, "zip: record '{}' added twice", name);
  const bool z64 = size >= kZip32Max;
  const uint32_t crc = zip_crc32(data, size);
  ZipBytes h;
  h.u(0x04034b50, 4);
  h.u(z64 ? 45 : 20, 2);  // version needed: 4.5 for zip64
  h.u(0x0800, 2);         // flags: UTF-8 names
  h.u(0, 2);              // method: stored
  h.u(0, 4);              // time and date: zero, so the same tensors give the same bytes
  h.u(crc, 4);
  h.u(z64 ? kZip32Max : size, 4);
  h.u(z64 ? kZip32Max : size, 4);
  h.u(name.size(), 2);
  const uint64_t fixed = 30 + name.size() + (z64 ? 20 : 0) + 4;
  const uint64_t pad = (kZipAlign - (offset_ + fixed) % kZipAlign) % kZipAlign;
  h.u((z64 ? 20 : 0) + 4 + pad, 2);
  h.s(name);
  if (z64) {
    h.u(0x0001, 2);
    h.u(16, 2);
    h.u(size, 8);
    h.u(size, 8);
  }
  h.u(0x4246, 2);  // "FB": PyTorch's padding field
  h.u(pad, 2);
  h.b.insert(h.b.end(), pad, 'Z');
  entries_.push_back(Entry{name, offset_, size, crc});
  put(h.b.data(), h.b.size());
  put(data, size);
}

void ZipWriter::finish() {
  EMBER_CHECK(!finished_, "zip: finish() called twice");
  finished_ = true;
  const uint64_t cd_offset = offset_;
  for (const Entry& e : entries_) {
    const bool big_size = e.size >= kZip32Max, big_offset = e.header_offset >= kZip32Max;
    ZipBytes c;
    c.u(0x02014b50, 4);
    c.u(big_size || big_offset ? 45 : 20, 2);  // made by
    c.u(big_size || big_offset ? 45 : 20, 2);  // needed
    c.u(0x0800, 2);
    c.u(0, 2);
    c.u(0, 4);
    c.u(e.crc32, 4);
    c.u(big_size ? kZip32Max : e.size, 4);
    c.u(big_size ? kZip32Max : e.size, 4);
    c.u(e.name.size(), 2);
    const uint64_t extra = (big_size ? 16 : 0) + (big_offset ? 8 : 0);
    c.u(extra ? extra + 4 : 0, 2);
    c.u(0, 2);  // comment
    c.u(0, 2);  // disk
    c.u(0, 2);  // internal attributes
    c.u(0, 4);  // external attributes
    c.u(big_offset ? kZip32Max : e.header_offset, 4);
    c.s(e.name);
    if (extra) {
      c.u(0x0001, 2);
      c.u(extra, 2);
      if (big_size) {
        c.u(e.size, 8);
        c.u(e.size, 8);
      }
      if (big_offset) c.u(e.header_offset, 8);
    }
    put(c.b.data(), c.b.size());
  }
  const uint64_t cd_size = offset_ - cd_offset;
  const bool z64 = entries_.size() >= 0xFFFF || cd_offset >= kZip32Max || cd_size >= kZip32Max;
  ZipBytes end;
  if (z64) {
    const uint64_t z64_offset = offset_;
    end.u(0x06064b50, 4);
    end.u(44, 8);  // size of the rest of this record
    end.u(45, 2);
    end.u(45, 2);
    end.u(0, 4);
    end.u(0, 4);
    end.u(entries_.size(), 8);
    end.u(entries_.size(), 8);
    end.u(cd_size, 8);
    end.u(cd_offset, 8);
    end.u(0x07064b50, 4);  // locator
    end.u(0, 4);
    end.u(z64_offset, 8);
    end.u(1, 4);
  }
  end.u(0x06054b50, 4);
  end.u(0, 2);
  end.u(0, 2);
  end.u(z64 ? 0xFFFF : entries_.size(), 2);
  end.u(z64 ? 0xFFFF : entries_.size(), 2);
  end.u(z64 ? kZip32Max : cd_size, 4);
  end.u(z64 ? kZip32Max : cd_offset, 4);
  end.u(0, 2);
  put(end.b.data(), end.b.size());
}

}  // namespace ember::serialize::detail
