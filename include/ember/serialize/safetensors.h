// Safetensors (the format of Python's `safetensors` package and the Hugging Face hub): an 8-byte
// little-endian header length N, N bytes of JSON naming each tensor's dtype, shape and byte range,
// then the raw little-endian tensor bytes.
//
//   ember::OrderedDict<std::string, ember::Tensor> tensors;
//   tensors.insert("fc1.weight", w);
//   ember::serialize::save_safetensors(tensors, "model.safetensors", {{"format", "pt"}});
//   auto loaded = ember::serialize::load_safetensors("model.safetensors");
//
// Files are written as Python's safetensors writes them (tensors ordered by dtype size, then name;
// header padded with spaces to a multiple of 8), so the bytes match its save_file. Loads check
// everything the reference reader checks (and duplicate keys, which it lets through) and refuse
// a bad file with an ember::Error naming the file, the tensor and what is wrong.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/macros.h"
#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"

namespace ember::serialize {

/// Writes `tensors` (any dtype Ember has, any device, any layout: written contiguous from the host
/// copy) and the string `metadata` (the header's "__metadata__") to `path`, atomically (a reader
/// sees the old file or the whole new one). Error for an undefined tensor or a name or metadata
/// string that is not valid UTF-8.
EMBER_API void save_safetensors(const OrderedDict<std::string, Tensor>& tensors,
                                const std::string& path,
                                const std::map<std::string, std::string>& metadata = {});
/// The same bytes, in memory.
EMBER_API std::vector<char> save_safetensors_to_bytes(
    const OrderedDict<std::string, Tensor>& tensors,
    const std::map<std::string, std::string>& metadata = {});

/// Reads every tensor of a safetensors file, in the header's order. The file is memory-mapped
/// (copy-on-write): a tensor whose bytes are aligned for its dtype shares the mapping (writing to
/// it never changes the file), others are copied. Tensors are moved to `device` when given.
EMBER_API OrderedDict<std::string, Tensor> load_safetensors(
    const std::string& path, std::optional<Device> device = std::nullopt);
/// The same from bytes in memory (always copied: the result does not refer to `data`).
EMBER_API OrderedDict<std::string, Tensor> load_safetensors_from_bytes(
    const void* data, size_t size, std::optional<Device> device = std::nullopt);

/// The header's "__metadata__" (empty when absent), after the same validation as a load.
EMBER_API std::map<std::string, std::string> load_safetensors_metadata(const std::string& path);
EMBER_API std::map<std::string, std::string> load_safetensors_metadata_from_bytes(const void* data,
                                                                                  size_t size);

}  // namespace ember::serialize
