// PyTorch's state_dict files: what `torch.save(model.state_dict(), path)` writes, read without
// running any code, and files `torch.load(path, weights_only=True)` reads.
//
//   auto sd = ember::serialize::load_torch_state_dict("model.pt");
//   for (const auto& item : sd) std::cout << item.key() << " " << item.value().sizes() << "\n";
//   ember::serialize::save_torch_state_dict(sd, "copy.pt");
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "ember/core/device.h"
#include "ember/core/macros.h"
#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"

namespace ember::serialize {

/// Loads a state_dict (a dict or OrderedDict of string -> tensor) that torch.save wrote. The file
/// is memory-mapped and tensors share its pages (copy-on-write: writing a tensor never changes
/// the file); tensors that shared a storage in Python share one here. With `device`, tensors are
/// moved there. Error naming the file, the record and what is wrong for a corrupt, truncated or
/// hostile file, or one holding anything but string -> tensor entries at the top.
EMBER_API OrderedDict<std::string, Tensor> load_torch_state_dict(
    const std::string& path, std::optional<Device> device = std::nullopt);

/// The same, from bytes in memory (copied: the buffer may go away after the call). `source`
/// names the bytes in errors.
EMBER_API OrderedDict<std::string, Tensor> load_torch_state_dict(
    const char* data, size_t size, std::optional<Device> device = std::nullopt,
    const std::string& source = "<memory>");

/// Saves a state_dict in torch.save's format (an OrderedDict, protocol 2), atomically (a
/// temporary file renamed over `path`). Views of one storage are written once; each tensor keeps
/// its dtype, sizes, strides and storage offset.
EMBER_API void save_torch_state_dict(const OrderedDict<std::string, Tensor>& state_dict,
                                     const std::string& path);

}  // namespace ember::serialize
