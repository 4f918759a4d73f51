// Parametrizations (Python's torch.nn.utils.parametrize): a module's tensor computed from other
// tensors by small modules, e.g. a weight kept symmetric or orthogonal by construction.
//
//   struct SymmetricImpl : nn::Module {
//     Tensor forward(const Tensor& x) { return x.triu() + x.triu(1).transpose(0, 1); }
//   };
//   EMBER_MODULE(Symmetric);
//   nn::Linear lin(3, 3);
//   parametrize::register_parametrization(*lin, "weight", Symmetric());
//   lin(x);                  // lin->weight is recomputed from
//                            // lin->parametrizations.weight.original before the forward
//
// A parametrization is a plain nn::Module subclass with `Tensor forward(Tensor)` (the first one
// of a tensor may take several tensors, `forward(Tensor, Tensor)`, when its right_inverse returns
// that many) and optionally `right_inverse(Tensor)` returning a Tensor, a std::vector<Tensor> or a
// std::tuple/std::pair of tensors.
//
// How it maps onto C++: Python replaces the attribute by a property computed at each access. Here
// the module's own tensor member (`lin->weight`, which shares one TensorImpl with the registry
// entry) is rebound to the parametrized value by a forward pre-hook before each call through the
// holder or a container (`lin(x)`, not `lin->forward(x)`), at registration, and by refresh().
// Gradients flow from it to the originals. The registry entry itself moves, as in Python: the
// tensor becomes `parametrizations.<name>.original` (or `original0`, `original1`...), so
// state_dict keys equal Python's. Optimizers should be built after registering (as in Python, the
// original is what they update; here the old handle becomes the computed value).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/modules/container/module_list.h"
#include "ember/nn/pimpl.h"

namespace ember::nn::utils::parametrize {

/// One parametrization as the list calls it: its forward and right_inverse over tensor lists.
struct ParametrizationFunctions {
  std::function<Tensor(const std::vector<Tensor>&)> forward;
  /// Empty when the parametrization has no right_inverse (then it counts as the identity).
  std::function<std::vector<Tensor>(const Tensor&)> right_inverse;
  /// Whether right_inverse returns one Tensor (rather than a sequence of them).
  bool right_inverse_returns_tensor = true;
  /// How many tensors forward takes.
  size_t arity = 1;
};

/// The parametrizations of one tensor, in the order they apply, and the original tensor(s) they
/// are computed from (Python's ParametrizationList: a module list with `original`).
class EMBER_API ParametrizationListImpl : public Module {
 public:
  /// Takes `slot` (the module's tensor) as the original: sets it to right_inverse(slot) and, unless
  /// unsafe, checks that forward gives back a tensor of the slot's shape and dtype.
  ParametrizationListImpl(std::shared_ptr<Module> parametrization,
                          ParametrizationFunctions functions, const Tensor& slot,
                          bool slot_is_parameter, bool unsafe);
  ~ParametrizationListImpl() override;

  /// The parametrized value computed from the originals now.
  Tensor forward() const;
  /// Sets the originals so that forward() gives `value` (each right_inverse, last one first).
  void right_inverse(const Tensor& value);

  /// Adds a parametrization applied after the others.
  void append(std::shared_ptr<Module> parametrization, ParametrizationFunctions functions);
  /// The i-th parametrization module.
  std::shared_ptr<Module> operator[](size_t i) const;
  size_t size() const noexcept { return functions_.size(); }
  /// Whether the original is one tensor (`original`) or several (`original0`, ...).
  bool is_tensor() const noexcept { return is_tensor_; }
  size_t ntensors() const noexcept { return originals_.size(); }
  /// `original`, or original(i) for `original<i>`.
  const Tensor& original(size_t i = 0) const;
  bool unsafe() const noexcept { return unsafe_; }
  void set_unsafe(bool unsafe) noexcept { unsafe_ = unsafe; }

  /// Rebinds the module's tensor to forward() (at most once per cached() scope).
  void refresh();
  /// Rebinds the module's tensor without counting as an access: the parametrizations' buffers
  /// (spectral_norm's power-iteration vectors) are put back afterwards, so registration and
  /// assign() advance them exactly as often as Python's do (never).
  void refresh_keeping_state();
  /// The module's tensor this list computes (the member the layer reads).
  const Tensor& slot() const noexcept { return slot_; }
  /// Internal: hooks the owner so each call refreshes the slot first.
  void attach(Module& owner);
  void detach_from_owner();

  void pretty_print(std::ostream& stream) const override;

 private:
  std::vector<ParametrizationFunctions> functions_;
  std::vector<Tensor> originals_;
  Tensor slot_;
  RemovableHandle hook_;
  bool is_tensor_ = true;
  bool unsafe_ = false;
};
EMBER_MODULE(ParametrizationList);

namespace detail {

template <typename P, typename = void>
struct HasRightInverse : std::false_type {};
template <typename P>
struct HasRightInverse<
    P, std::void_t<decltype(std::declval<P&>().right_inverse(std::declval<Tensor>()))>>
    : std::true_type {};

template <typename P, typename Seq, typename = void>
struct ForwardTakes : std::false_type {};
template <typename P, size_t... I>
struct ForwardTakes<
    P, std::index_sequence<I...>,
    std::void_t<decltype(std::declval<P&>().forward(((void)I, std::declval<const Tensor&>())...))>>
    : std::true_type {};

template <typename P>
constexpr size_t forward_arity() {
  if constexpr (ForwardTakes<P, std::make_index_sequence<1>>::value)
    return 1;
  else if constexpr (ForwardTakes<P, std::make_index_sequence<2>>::value)
    return 2;
  else if constexpr (ForwardTakes<P, std::make_index_sequence<3>>::value)
    return 3;
  else if constexpr (ForwardTakes<P, std::make_index_sequence<4>>::value)
    return 4;
  else
    return 0;
}

template <typename P, size_t... I>
Tensor call_forward(P& p, const std::vector<Tensor>& xs, std::index_sequence<I...>) {
  return p.forward(xs[I]...);
}

template <typename T>
std::vector<Tensor> as_tensor_list(T&& r) {
  using R = std::decay_t<T>;
  if constexpr (std::is_same_v<R, Tensor>) {
    return {std::forward<T>(r)};
  } else if constexpr (std::is_same_v<R, std::vector<Tensor>>) {
    return std::forward<T>(r);
  } else {  // std::tuple / std::pair of tensors
    return std::apply([](auto&&... t) { return std::vector<Tensor>{Tensor(t)...}; }, r);
  }
}

/// Type-erases a parametrization module `P`.
template <typename P>
ParametrizationFunctions functions_of(const std::shared_ptr<P>& p) {
  static_assert(std::is_base_of_v<Module, P>, "a parametrization must be an nn::Module subclass");
  constexpr size_t arity = forward_arity<P>();
  static_assert(arity > 0, "a parametrization needs `Tensor forward(Tensor)` (or several tensors)");
  ParametrizationFunctions f;
  f.arity = arity;
  f.forward = [p](const std::vector<Tensor>& xs) {
    return call_forward(*p, xs, std::make_index_sequence<arity>{});
  };
  if constexpr (HasRightInverse<P>::value) {
    using R = std::decay_t<decltype(p->right_inverse(std::declval<Tensor>()))>;
    f.right_inverse_returns_tensor = std::is_same_v<R, Tensor>;
    f.right_inverse = [p](const Tensor& x) { return as_tensor_list(p->right_inverse(x)); };
  }
  return f;
}

EMBER_API void register_parametrization(Module& module, const std::string& tensor_name,
                                        std::shared_ptr<Module> parametrization,
                                        ParametrizationFunctions functions, bool unsafe);

}  // namespace detail

/// Parametrizes `module`'s parameter or buffer `tensor_name` (or adds one more parametrization to
/// an already parametrized one). Unless `unsafe`, the parametrization must keep the tensor's shape
/// and dtype.
template <typename P>
void register_parametrization(Module& module, const std::string& tensor_name,
                              std::shared_ptr<P> parametrization, bool unsafe = false) {
  auto functions = detail::functions_of(parametrization);
  detail::register_parametrization(module, tensor_name, std::move(parametrization),
                                   std::move(functions), unsafe);
}
template <typename P>
void register_parametrization(Module& module, const std::string& tensor_name,
                              const ModuleHolder<P>& parametrization, bool unsafe = false) {
  register_parametrization(module, tensor_name, parametrization.ptr(), unsafe);
}
/// A parametrization module passed by value (`Symmetric()` of a plain Module subclass).
template <typename P, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<P>>>>
void register_parametrization(Module& module, const std::string& tensor_name, P&& parametrization,
                              bool unsafe = false) {
  register_parametrization(module, tensor_name,
                           std::make_shared<std::decay_t<P>>(std::forward<P>(parametrization)),
                           unsafe);
}

/// Removes every parametrization of `tensor_name`. With leave_parametrized the tensor becomes a
/// plain parameter (or buffer) holding the current parametrized value; otherwise it gets the
/// original back (only possible when there is one original tensor). The module's tensor member
/// is that parameter again.
EMBER_API void remove_parametrizations(Module& module, const std::string& tensor_name,
                                       bool leave_parametrized = true);

/// Whether `tensor_name` of `module` is parametrized; with "" whether any tensor is.
EMBER_API bool is_parametrized(const Module& module, const std::string& tensor_name = "");

/// The module's type. Python swaps the class of a parametrized module and this returns the one
/// before; C++ never changes a module's type, so it is always typeid(module).
EMBER_API std::type_index type_before_parametrizations(const Module& module);

/// The parametrization list of `tensor_name` (module.parametrizations[tensor_name] in Python).
EMBER_API std::shared_ptr<ParametrizationListImpl> parametrization_list(
    const Module& module, const std::string& tensor_name);

/// Python's `module.<tensor_name> = value` on a parametrized tensor: sets the originals through
/// right_inverse, then refreshes the module's tensor.
EMBER_API void assign(Module& module, const std::string& tensor_name, const Tensor& value);

/// Recomputes every parametrized tensor of `module` and its submodules now (what a call through
/// the holder does first), e.g. after an optimizer step when reading `lin->weight` directly.
EMBER_API void refresh(Module& module);

/// While one is alive on this thread, each parametrized tensor is computed once (at the first
/// call of its module) and reused by later calls: Python's `with parametrize.cached():`.
class EMBER_API CachedGuard {
 public:
  CachedGuard();
  ~CachedGuard();
  CachedGuard(const CachedGuard&) = delete;
  CachedGuard& operator=(const CachedGuard&) = delete;
};
/// `auto guard = parametrize::cached();`
inline CachedGuard cached() { return CachedGuard(); }

}  // namespace ember::nn::utils::parametrize
