// The archive's on-disk format: a safetensors file. Each tensor of the tree is a safetensors tensor
// named by its path joined with '.' ("fc1.weight"), so Python's safetensors.torch.load_file shows
// a state_dict; the tree itself (order, nesting, kinds, is_buffer, non-tensor values) is the JSON
// under the metadata key "ember.archive":
//
//   {"format":"ember.archive","version":1,"entries":[
//     {"path":["fc1"],"kind":"archive"},
//     {"path":["fc1","weight"],"kind":"tensor","name":"fc1.weight","buffer":false},
//     {"path":["step"],"kind":"int","value":3},
//     {"path":["lr"],"kind":"double","bits":"3f50624dd2f1a9fc"}, ...]}
//
// Entries are flat, pre-order, each naming its full path, so reading nested archives never
// recurses. Doubles are stored as their IEEE bits (exact: -0.0, NaN payloads); strings that are
// not UTF-8 as "hex". Generic lists, tuples and dicts nest value objects:
//   {"path":["state"],"kind":"dict","items":[[{"kind":"int","value":0},{"kind":"tensor",...}]]}
// (at most 16 levels). A file without "ember.archive" (one Python wrote) loads as nested
// archives of its tensors, split on '.'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ember/core/device.h"
#include "ember/serialize/archive.h"
#include "src/serialize/file_io.h"
#include "src/serialize/safetensors_format.h"

namespace ember::serialize::detail {

/// The metadata key holding the tree.
inline constexpr const char* kArchiveMetadataKey = "ember.archive";

/// Writes the tree as a safetensors file into `sink`. `op` names the caller in errors.
void write_archive(const ArchiveNode& root, const ByteSink& sink, const char* op);

/// Reads a whole archive file held in `data`. With `keepalive` (the mapping or buffer owning
/// `data`), aligned tensors share it. Dispatches on the first bytes: a zip is a PyTorch .pt file,
/// whose tensors share `mapped` (the file `data` maps, when it is one) instead of being copied.
/// `what` starts every error.
std::shared_ptr<ArchiveNode> read_archive(const uint8_t* data, size_t size,
                                          const std::shared_ptr<void>& keepalive,
                                          std::optional<Device> device, const std::string& what,
                                          const std::shared_ptr<MappedFile>& mapped = nullptr);

}  // namespace ember::serialize::detail
