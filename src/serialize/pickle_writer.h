// A pickler for the subset the unpickler reads: None, bools, ints, floats, strings, tuples,
// lists, dicts (plain, or collections.OrderedDict as torch.save writes a state_dict) and tensors
// as torch._utils._rebuild_tensor_v2 over persistent-id storages, so that Python's
// torch.load(path, weights_only=True) reads what Ember writes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ember/core/ivalue.h"
#include "ember/core/macros.h"

namespace ember::serialize::detail {

/// Where a tensor's storage was filed: its record key and its size in elements of the tensor's
/// dtype (what the persistent id names).
struct PickleStorageRef {
  std::string key;
  int64_t numel;
};
/// Files a tensor's storage (once per storage) and says where.
using PickleTensorSink = std::function<PickleStorageRef(const Tensor&)>;

/// Pickles `value` (protocol 2). `ordered_dicts`: dicts become collections.OrderedDict (a
/// state_dict), else plain dicts. `op` names the caller in errors (e.g. "pickle_save").
EMBER_API std::vector<char> pickle_value(const IValue& value, bool ordered_dicts,
                                         const PickleTensorSink& tensor_sink, const char* op);

}  // namespace ember::serialize::detail
