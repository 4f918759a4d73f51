// functional_call (Python's torch.func.functional_call): calls a module with some of its
// parameters and buffers replaced by given tensors, without changing the module.
//
//   auto out = nn::utils::functional_call(*model, {{"fc.weight", w}, {"fc.bias", b}}, x);
//   out.sum().backward();   // gradients reach w and b, not the model's own tensors
//
// Keys are the dotted names of named_parameters() / named_buffers(); a parametrized tensor is
// replaced through its original ("parametrizations.weight.original"). The call goes through the
// module's hooks as `module(x)` does. In-place updates the forward makes to a replaced buffer land
// in the given tensor (as in Python). The module gets its own tensors back when the call returns
// or throws; graphs built during the call keep the given tensors.
//
// Tied tensors (one tensor under several names) are one tensor in C++, so replacing one name
// replaces them all (tie_weights = true, Python's default); tie_weights = false is refused when a
// given key is tied to one that is not given, since that cannot be expressed.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/ordered_dict.h"
#include "ember/nn/module.h"
#include "ember/nn/module_call.h"
#include "ember/nn/pimpl.h"

namespace ember::nn::utils {

/// Names -> tensors given to functional_call: a braced list, a map or an OrderedDict (state_dict).
class EMBER_API NamedTensors {
 public:
  NamedTensors(std::initializer_list<std::pair<std::string, Tensor>> items) : items_(items) {}
  NamedTensors(std::vector<std::pair<std::string, Tensor>> items) : items_(std::move(items)) {}
  NamedTensors(const std::map<std::string, Tensor>& items) : items_(items.begin(), items.end()) {}
  NamedTensors(const std::unordered_map<std::string, Tensor>& items)
      : items_(items.begin(), items.end()) {}
  NamedTensors(const OrderedDict<std::string, Tensor>& items) {
    for (const auto& item : items) items_.emplace_back(item.key(), item.value());
  }
  const std::vector<std::pair<std::string, Tensor>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, Tensor>> items_;
};

struct FunctionalCallOptions {
  /// Replacing one name of tied tensors replaces all of them.
  EMBER_ARG(bool, tie_weights) = true;
  /// The given names must be exactly the module's parameters and buffers.
  EMBER_ARG(bool, strict) = false;
};

namespace detail {

/// Replaces the module's tensors by the given ones until destroyed.
class EMBER_API ReparametrizeGuard {
 public:
  ReparametrizeGuard(Module& module, const NamedTensors& tensors,
                     const FunctionalCallOptions& options);
  ~ReparametrizeGuard();
  ReparametrizeGuard(const ReparametrizeGuard&) = delete;
  ReparametrizeGuard& operator=(const ReparametrizeGuard&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Whether a call's first extra argument is the options (then the options overload is meant).
template <typename... Args>
struct StartsWithOptions : std::false_type {};
template <typename First, typename... Rest>
struct StartsWithOptions<First, Rest...>
    : std::is_same<std::decay_t<First>, FunctionalCallOptions> {};
template <typename... Args>
using NoOptionsFirst = std::enable_if_t<!StartsWithOptions<Args...>::value>;

}  // namespace detail

/// module(args...) with `tensors` in place of the module's own.
template <typename M, typename... Args>
decltype(auto) functional_call(M& module, const NamedTensors& tensors,
                               const FunctionalCallOptions& options, Args&&... args) {
  detail::ReparametrizeGuard guard(module, tensors, options);
  return call_module(module, std::forward<Args>(args)...);
}
template <typename M, typename... Args, typename = detail::NoOptionsFirst<Args...>>
decltype(auto) functional_call(M& module, const NamedTensors& tensors, Args&&... args) {
  return functional_call(module, tensors, FunctionalCallOptions(), std::forward<Args>(args)...);
}
/// Through a holder: functional_call(model, ...) as well as functional_call(*model, ...).
template <typename C, typename... Args>
decltype(auto) functional_call(ModuleHolder<C>& module, const NamedTensors& tensors,
                               const FunctionalCallOptions& options, Args&&... args) {
  return functional_call(*module, tensors, options, std::forward<Args>(args)...);
}
template <typename C, typename... Args, typename = detail::NoOptionsFirst<Args...>>
decltype(auto) functional_call(ModuleHolder<C>& module, const NamedTensors& tensors,
                               Args&&... args) {
  return functional_call(*module, tensors, FunctionalCallOptions(), std::forward<Args>(args)...);
}

}  // namespace ember::nn::utils
