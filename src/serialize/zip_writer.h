// A writer for the zip container torch.save writes: STORED records whose data starts on a 64-byte
// boundary (the padding sits in the local header's extra field, as PyTorch's writer does, so a
// reader can map tensors straight from the file), CRC32, a central directory, and zip64 records
// once an offset, a size or the record count outgrows the 32/16-bit fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ember/core/macros.h"

namespace ember::serialize::detail {

class EMBER_API ZipWriter {
 public:
  /// `sink` receives the archive's bytes in order (e.g. AtomicFileWriter::write).
  explicit ZipWriter(std::function<void(const void*, size_t)> sink);

  /// Appends a record. Records are written as they come; names must be unique.
  void add(const std::string& name, const void* data, size_t size);
  /// Writes the central directory and the end records. No add() after it.
  void finish();

 private:
  struct Entry {
    std::string name;
    uint64_t header_offset, size;
    uint32_t crc32;
  };
  void put(const void* data, size_t size);
  void put_padding(size_t size);

  std::function<void(const void*, size_t)> sink_;
  uint64_t offset_ = 0;
  std::vector<Entry> entries_;
  bool finished_ = false;
};

}  // namespace ember::serialize::detail
