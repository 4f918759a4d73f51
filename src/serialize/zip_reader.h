// A reader for the zip container torch.save writes: STORED (uncompressed) records only, zip and
// zip64 end records, every offset and length checked against the buffer, CRC32 checked on read.
// It reads a buffer it does not own (a MappedFile's pages, or a caller's bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/macros.h"

namespace ember::serialize::detail {

/// One record of a zip: where its bytes lie in the buffer.
struct ZipRecord {
  std::string name;
  uint64_t data_offset = 0;  // from the start of the buffer
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

class EMBER_API ZipReader {
 public:
  /// Parses the central directory of `data` (which must outlive the reader). `source` names the
  /// buffer in errors (a file path, or "<memory>"). Error for a truncated or corrupt zip, a
  /// compressed or encrypted record, or a record lying outside the buffer.
  ZipReader(const uint8_t* data, size_t size, std::string source);

  /// The records, in central directory order.
  const std::vector<ZipRecord>& records() const { return records_; }
  /// The record named `name`, or nullptr.
  const ZipRecord* find(const std::string& name) const;
  /// The bytes of `record`, after checking their CRC32 (Error naming the record on a mismatch).
  const uint8_t* read(const ZipRecord& record) const;
  const std::string& source() const { return source_; }

 private:
  void parse();
  void read_central_entry(uint64_t& pos, uint64_t cd_end);

  const uint8_t* data_;
  uint64_t size_;
  std::string source_;
  std::vector<ZipRecord> records_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember::serialize::detail
