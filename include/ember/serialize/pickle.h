// ember::pickle_save / ember::pickle_load, as LibTorch's torch::pickle_save / torch::pickle_load:
// an IValue to and from the bytes of PyTorch's torch.save format (a zip holding a protocol-2
// pickle and one record per tensor storage), so Python reads what Ember writes and back:
//
//   // Python reads it with torch.load(io.BytesIO(bytes)):
//   std::vector<char> bytes = ember::pickle_save(ember::IValue(dict));
//   // What Python's torch.save({"w": t}, f) wrote:
//   ember::IValue v = ember::pickle_load(bytes);
#pragma once

#include <vector>

#include "ember/core/ivalue.h"
#include "ember/core/macros.h"

namespace ember {

/// Serializes `value` (None, bool, int, double, string, tensors, tuples, lists and dicts of
/// those) into torch.save's zip format. Tensors sharing a storage share it in the file; a
/// non-contiguous tensor keeps its strides over its (whole) storage.
EMBER_API std::vector<char> pickle_save(const IValue& value);

/// Reads torch.save's zip format (what pickle_save or Python's torch.save wrote). Only the
/// globals a state_dict uses are accepted (no code runs); anything else, or a corrupt or
/// truncated input, is an Error naming what is wrong and where. Tensors are loaded on the CPU.
EMBER_API IValue pickle_load(const std::vector<char>& data);

}  // namespace ember
