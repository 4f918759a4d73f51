// Module hook types (Python's torch.nn.Module hooks, in C++ form) and the handle that removes one.
//
//   auto h = model->register_forward_hook(
//       [](nn::Module& m, const std::vector<IValue>& inputs, const IValue& output)
//           -> std::optional<IValue> { std::cout << m.name() << "\n"; return std::nullopt; });
//   h.remove();
//
// Forward hooks see the call's arguments as IValues (a Tensor argument is `inputs[0].toTensor()`);
// a hook that returns a value replaces the inputs (pre-hook) or the output (hook).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/core/ivalue.h"
#include "ember/core/ordered_dict.h"

namespace ember::nn {

class Module;
using autograd::variable_list;

/// Name -> tensor, in registration order, with the dotted keys Python would produce.
using StateDict = OrderedDict<std::string, Tensor>;

/// What load_state_dict(strict = false) could not match.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
  bool empty() const { return missing_keys.empty() && unexpected_keys.empty(); }
};

/// hook(module, inputs) -> replacement inputs, or nullopt to keep them.
using ForwardPreHook =
    std::function<std::optional<std::vector<IValue>>(Module&, const std::vector<IValue>&)>;
/// hook(module, inputs, output) -> replacement output, or nullopt to keep it.
using ForwardHook =
    std::function<std::optional<IValue>(Module&, const std::vector<IValue>&, const IValue&)>;
/// hook(module, grad_input, grad_output) -> replacement grad_input, or nullopt. grad_input has
/// one entry per tensor argument of the call (undefined where none flows), grad_output one per
/// tensor output.
using BackwardHook = std::function<std::optional<variable_list>(
    Module&, const variable_list& grad_input, const variable_list& grad_output)>;
/// hook(module, grad_output) -> replacement grad_output, or nullopt.
using BackwardPreHook =
    std::function<std::optional<variable_list>(Module&, const variable_list& grad_output)>;
/// hook(module, prefix, keep_vars), before state_dict() collects this module.
using StateDictPreHook = std::function<void(Module&, const std::string& prefix, bool keep_vars)>;
/// hook(module, state_dict, prefix), after this module's entries are in; may edit the dict.
using StateDictPostHook =
    std::function<void(Module&, StateDict& state_dict, const std::string& prefix)>;
/// hook(module, state_dict, prefix, strict, missing_keys, unexpected_keys, error_msgs), before
/// this module's entries are matched; may edit the dict (e.g. rename old keys).
using LoadStateDictPreHook = std::function<void(
    Module&, StateDict& state_dict, const std::string& prefix, bool strict,
    std::vector<std::string>& missing_keys, std::vector<std::string>& unexpected_keys,
    std::vector<std::string>& error_msgs)>;
/// hook(module, incompatible_keys), after loading; may clear keys it knows to be harmless (that
/// decides what strict loading reports).
using LoadStateDictPostHook = std::function<void(Module&, IncompatibleKeys&)>;

namespace detail {
struct HookLists;
}

/// Removes the hook it was returned for; harmless to call twice or after the module is gone.
class EMBER_API RemovableHandle {
 public:
  RemovableHandle() = default;
  RemovableHandle(std::weak_ptr<detail::HookLists> lists, size_t id)
      : lists_(std::move(lists)), id_(id) {}
  void remove();
  /// The hook's id, unique per process.
  size_t id() const { return id_; }

 private:
  std::weak_ptr<detail::HookLists> lists_;
  size_t id_ = 0;
};

/// Hooks that run for every module call in the process, before the module's own hooks (Python's
/// torch.nn.modules.module.register_module_forward_hook and friends).
EMBER_API RemovableHandle register_module_forward_pre_hook(ForwardPreHook hook);
EMBER_API RemovableHandle register_module_forward_hook(ForwardHook hook);
EMBER_API RemovableHandle register_module_full_backward_pre_hook(BackwardPreHook hook);
EMBER_API RemovableHandle register_module_full_backward_hook(BackwardHook hook);

}  // namespace ember::nn
