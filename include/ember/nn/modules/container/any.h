// AnyModule: any module behind one type, called with boxed (IValue) arguments, as LibTorch's
// torch::nn::AnyModule. Sequential stores its modules this way.
//
//   nn::AnyModule any(nn::Linear(3, 4));
//   Tensor y = any.forward(x);              // forward<Tensor> by default
//   IValue v = any.any_forward(x);          // the boxed result
//
// The module's forward must be a single (non-template, non-overloaded) member function whose
// arguments and result hooks can carry (see module_call.h); a module may instead provide
// `IValue forward_ivalues(std::vector<IValue>)` (Sequential does, so it nests). A call must give
// every argument of forward, except those the module declared with
// EMBER_FORWARD_HAS_DEFAULT_ARGS (nn/forward_defaults.h), which are filled in.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/forward_defaults.h"
#include "ember/nn/module_call.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {
namespace detail {

template <typename F>
struct ForwardTraits;
template <typename R, typename C, typename... P>
struct ForwardTraits<R (C::*)(P...)> {
  using Result = R;
  static constexpr size_t arity = sizeof...(P);
  template <size_t I>
  using Arg = std::tuple_element_t<I, std::tuple<P...>>;
};
template <typename R, typename C, typename... P>
struct ForwardTraits<R (C::*)(P...) const> : ForwardTraits<R (C::*)(P...)> {};

template <typename M, typename = void>
struct HasBoxedForward : std::false_type {};
template <typename M>
struct HasBoxedForward<M, std::void_t<decltype(std::declval<M&>().forward_ivalues(
                              std::declval<std::vector<IValue>>()))>> : std::true_type {};

[[noreturn]] EMBER_API void throw_arity(const std::string& module, size_t want, size_t got);

template <typename M, typename Traits, size_t... I>
IValue invoke_unboxed(M& m, std::vector<IValue>& in, std::index_sequence<I...>) {
  using R = typename Traits::Result;
  if constexpr (std::is_void_v<R>) {
    m.forward(Codec<typename Traits::template Arg<I>>::from(in[I])...);
    return IValue();
  } else {
    return Codec<R>::to(m.forward(Codec<typename Traits::template Arg<I>>::from(in[I])...));
  }
}

/// Calls M's forward on boxed inputs, with M's hooks.
template <typename M>
IValue boxed_call(Module& base, std::vector<IValue>&& in) {
  M& m = static_cast<M&>(base);
  auto run = [&](std::vector<IValue>& args) -> IValue {
    if constexpr (HasBoxedForward<M>::value) {
      return m.forward_ivalues(std::move(args));
    } else {
      using Traits = ForwardTraits<decltype(&M::forward)>;
      if (args.size() != Traits::arity) {
        if constexpr (ForwardDefaults::present<M>())
          fill_forward_defaults(m.name(), args, Traits::arity, ForwardDefaults::values<M>());
        else
          throw_arity(m.name(), Traits::arity, args.size());
      }
      return invoke_unboxed<M, Traits>(m, args, std::make_index_sequence<Traits::arity>{});
    }
  };
  if (EMBER_LIKELY(!m.has_call_hooks())) return run(in);
  HookedCall call(m);
  call.before(in);
  IValue out = run(in);
  call.after(in, out);
  return out;
}

template <typename M>
size_t forward_arity() {
  if constexpr (HasBoxedForward<M>::value) {
    return 0;  // takes whatever it is given
  } else {
    return ForwardTraits<decltype(&M::forward)>::arity;
  }
}

}  // namespace detail

class EMBER_API AnyModule {
 public:
  AnyModule() = default;
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  explicit AnyModule(std::shared_ptr<M> module)
      : module_(std::move(module)),
        call_(&detail::boxed_call<M>),
        arity_(detail::forward_arity<M>()) {}
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>,
            typename = void>
  explicit AnyModule(M&& module)
      : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}
  template <typename M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  /// Copies share the module, except inside clone(), where they take the submodule's clone.
  AnyModule(const AnyModule& other);
  AnyModule(AnyModule&&) noexcept = default;
  AnyModule& operator=(const AnyModule&) = default;
  AnyModule& operator=(AnyModule&&) noexcept = default;

  /// forward(args...) through the module's hooks, boxed.
  template <typename... Args>
  IValue any_forward(Args&&... args) {
    return forward_ivalues({detail::Codec<Args>::to(args)...});
  }
  /// forward(args...) unboxed as R (Tensor by default).
  template <typename R = Tensor, typename... Args>
  R forward(Args&&... args) {
    return detail::Codec<R>::from(any_forward(std::forward<Args>(args)...));
  }
  /// forward on already boxed inputs.
  IValue forward_ivalues(std::vector<IValue> inputs);

  /// How many arguments forward takes (0: any number, for boxed-forward modules).
  size_t arity() const { return arity_; }
  const std::shared_ptr<Module>& ptr() const;
  template <typename T>
  std::shared_ptr<T> ptr() const {
    return std::dynamic_pointer_cast<T>(ptr());
  }
  template <typename T, typename = std::enable_if_t<std::is_base_of_v<Module, T>>>
  T& get() const {
    T* p = dynamic_cast<T*>(ptr().get());
    if (!p) detail::throw_module_cast(ptr()->name(), typeid(T).name());
    return *p;
  }
  bool is_empty() const noexcept { return module_ == nullptr; }

 private:
  std::shared_ptr<Module> module_;
  IValue (*call_)(Module&, std::vector<IValue>&&) = nullptr;
  size_t arity_ = 0;
};

/// A name and a module, for building a Sequential with named entries:
///   nn::Sequential seq({{"fc", nn::Linear(3, 4)}, {"act", nn::ReLU()}});
class NamedAnyModule {
 public:
  template <typename M>
  NamedAnyModule(std::string name, M&& module)
      : name_(std::move(name)), module_(std::forward<M>(module)) {}
  NamedAnyModule(std::string name, AnyModule module)
      : name_(std::move(name)), module_(std::move(module)) {}
  const std::string& name() const { return name_; }
  AnyModule& module() { return module_; }
  const AnyModule& module() const { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace ember::nn
