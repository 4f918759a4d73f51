// The safetensors format's parts shared by the public functions (safetensors.cpp) and the archive
// format (archive_io.cpp), which stores an archive as a safetensors file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/scalar_type.h"
#include "ember/core/tensor.h"

namespace ember::serialize::detail {

/// Headers longer than this are refused (as the reference reader does: 100 MB).
constexpr uint64_t kSafetensorsMaxHeader = 100000000;

/// One tensor of a header, validated: dtype known to Ember, numel * size == end - begin, the
/// range inside the data buffer.
struct SafetensorsTensorInfo {
  std::string name;
  ScalarType dtype = ScalarType::Undefined;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // relative to the data buffer
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensorInfo> tensors;  // in the header's order
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // 8 + header length: where the data buffer begins
};

/// Parses and validates a whole file held in `data` (`size` bytes): header length against the
/// size, JSON, dtypes, shapes, offsets in range, no overlap, no gap, the buffer fully covered.
/// Errors start with `what` (the file name, or "safetensors bytes").
SafetensorsHeader parse_safetensors(const uint8_t* data, size_t size, const std::string& what);

/// The tensors of a parsed file (header order). With `keepalive`, tensors whose bytes are aligned
/// for their dtype share `data` and hold `keepalive` (the mapping) alive; others, and all without
/// it, are copies. BOOL bytes other than 0/1 are an Error.
std::vector<std::pair<std::string, Tensor>> safetensors_tensors(
    const SafetensorsHeader& header, const uint8_t* data, const std::shared_ptr<void>& keepalive,
    std::optional<Device> device, const std::string& what);

/// Receives the bytes of a file being written, in order.
using ByteSink = std::function<void(const void*, size_t)>;

/// Writes a safetensors file as Python's safetensors does. Names must be unique (the caller's
/// container guarantees it); `op` names the caller in errors.
void write_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata, const ByteSink& sink,
                       const char* op);

}  // namespace ember::serialize::detail
