// State_dict files in either format Python uses, picked for you:
//
//   model->load_state_dict(ember::load_state_dict("model.pt"));      // torch.save(sd, ...) wrote
//   it model->load_state_dict(ember::load_state_dict("model.safetensors"));
//   ember::save_state_dict(model->state_dict(), "model.safetensors");  // or "model.pt"
#pragma once

#include <optional>
#include <string>

#include "ember/core/device.h"
#include "ember/core/macros.h"
#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"

namespace ember {

/// Reads a state_dict file, choosing the format by its content: a zip is what Python's
/// torch.save wrote (read without running code: ember/serialize/torch_format.h), anything else is
/// read as safetensors. Tensors move to `device` when given. Error naming the file and what is
/// wrong for a corrupt one, or for the pre-1.6 torch.save format (a bare pickle).
EMBER_API OrderedDict<std::string, Tensor> load_state_dict(
    const std::string& path, std::optional<Device> device = std::nullopt);

/// Writes a state_dict atomically, choosing the format by the extension: ".safetensors" writes
/// safetensors, ".pt", ".pth" and ".bin" torch.save's format (Python reads it with
/// torch.load(path, weights_only=True)). Any other extension is an Error.
EMBER_API void save_state_dict(const OrderedDict<std::string, Tensor>& state_dict,
                               const std::string& path);

}  // namespace ember
