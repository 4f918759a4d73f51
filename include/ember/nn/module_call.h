// Calling a module: `call_module(m, args...)` is what `holder(args...)` and the containers use.
// Without hooks it is `m.forward(args...)` after one integer test; with hooks the arguments and
// the result travel as IValues through the hooks (forward pre-hooks, forward hooks) and, when
// backward hooks are registered and grad mode is on, through identity autograd nodes that see
// grad_output and grad_input (Python's BackwardHook).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/ivalue.h"
#include "ember/core/macros.h"
#include "ember/nn/module.h"

namespace ember::nn {
namespace detail {

/// How one forward argument / result type travels as an IValue. ok = false: hooks cannot see it.
template <typename T, typename = void>
struct IValueCodec {
  static constexpr bool ok = false;
};
template <typename T>
struct IValueCodec<
    T, std::enable_if_t<std::is_same_v<T, Tensor> || std::is_same_v<T, bool> ||
                        std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<Tensor>> ||
                        std::is_same_v<T, std::vector<int64_t>> ||
                        std::is_same_v<T, std::vector<double>>>> {
  static constexpr bool ok = true;
  static IValue to(const T& v) { return IValue(v); }
  static T from(const IValue& v) {
    if constexpr (std::is_same_v<T, Tensor>) {
      return v.isNone() ? Tensor() : v.toTensor();
    } else if constexpr (std::is_same_v<T, bool>) {
      return v.toBool();
    } else if constexpr (std::is_same_v<T, std::string>) {
      return v.toStringRef();
    } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
      return v.toTensorList();
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      return v.toIntVector();
    } else {
      return v.toDoubleVector();
    }
  }
};
template <typename T>
struct IValueCodec<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static constexpr bool ok = true;
  static IValue to(T v) { return IValue(static_cast<int64_t>(v)); }
  static T from(const IValue& v) { return static_cast<T>(v.toInt()); }
};
template <typename T>
struct IValueCodec<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static constexpr bool ok = true;
  static IValue to(T v) { return IValue(static_cast<double>(v)); }
  static T from(const IValue& v) { return static_cast<T>(v.toDouble()); }
};
template <>
struct IValueCodec<std::optional<Tensor>> {
  static constexpr bool ok = true;
  static IValue to(const std::optional<Tensor>& v) {
    return v && v->defined() ? IValue(*v) : IValue();
  }
  static std::optional<Tensor> from(const IValue& v) {
    if (v.isNone()) return std::nullopt;
    return v.toTensor();
  }
};

[[noreturn]] EMBER_API void throw_tuple_size(size_t got, size_t expected);

// Containers of what travels (Python's tuples, lists and dicts of tensors): a std::tuple or
// std::pair as a Tuple, any other std::vector as a GenericList, a std::map or std::unordered_map
// with string or integer keys as a GenericDict.
template <typename... Ts>
struct IValueCodec<std::tuple<Ts...>> {
  static constexpr bool ok = (IValueCodec<std::decay_t<Ts>>::ok && ...);
  static IValue to(const std::tuple<Ts...>& v) {
    return std::apply(
        [](const auto&... e) {
          return IValue(Tuple::create({IValueCodec<std::decay_t<Ts>>::to(e)...}));
        },
        v);
  }
  static std::tuple<Ts...> from(const IValue& v) {
    const auto& elements = v.toTuple()->elements();
    if (elements.size() != sizeof...(Ts)) throw_tuple_size(elements.size(), sizeof...(Ts));
    return from_elements(elements, std::index_sequence_for<Ts...>{});
  }

 private:
  template <size_t... I>
  static std::tuple<Ts...> from_elements(const std::vector<IValue>& e, std::index_sequence<I...>) {
    return std::tuple<Ts...>(IValueCodec<std::decay_t<Ts>>::from(e[I])...);
  }
};
template <typename A, typename B>
struct IValueCodec<std::pair<A, B>> {
  using AsTuple = IValueCodec<std::tuple<A, B>>;
  static constexpr bool ok = AsTuple::ok;
  static IValue to(const std::pair<A, B>& v) { return AsTuple::to(std::tuple<A, B>(v)); }
  static std::pair<A, B> from(const IValue& v) {
    auto t = AsTuple::from(v);
    return {std::move(std::get<0>(t)), std::move(std::get<1>(t))};
  }
};
template <typename T>
struct IValueCodec<std::vector<T>,
                   std::enable_if_t<!std::is_same_v<T, Tensor> && !std::is_same_v<T, int64_t> &&
                                    !std::is_same_v<T, double> && !std::is_same_v<T, bool>>> {
  static constexpr bool ok = IValueCodec<T>::ok;
  static IValue to(const std::vector<T>& v) {
    GenericList list;
    list.reserve(v.size());
    for (const T& e : v) list.push_back(IValueCodec<T>::to(e));
    return IValue(std::move(list));
  }
  static std::vector<T> from(const IValue& v) {
    std::vector<T> out;
    // toList() of an int, double or tensor list is a new list: keep it alive while iterating.
    const std::shared_ptr<GenericList> list = v.toList();
    for (const IValue& e : list->vec()) out.push_back(IValueCodec<T>::from(e));
    return out;
  }
};
template <typename Map>
struct IValueMapCodec {
  using K = typename Map::key_type;
  using V = typename Map::mapped_type;
  static constexpr bool ok =
      (std::is_same_v<K, std::string> || std::is_integral_v<K>)&&!std::is_same_v<K, bool> &&
      IValueCodec<V>::ok;
  static IValue to(const Map& m) {
    GenericDict dict;
    for (const auto& [key, value] : m)
      dict.insert_or_assign(IValueCodec<K>::to(key), IValueCodec<V>::to(value));
    return IValue(std::move(dict));
  }
  static Map from(const IValue& v) {
    Map out;
    for (const auto& entry : v.toGenericDict())
      out.emplace(IValueCodec<K>::from(entry.key()), IValueCodec<V>::from(entry.value()));
    return out;
  }
};
template <typename K, typename V>
struct IValueCodec<std::map<K, V>> : IValueMapCodec<std::map<K, V>> {};
template <typename K, typename V>
struct IValueCodec<std::unordered_map<K, V>> : IValueMapCodec<std::unordered_map<K, V>> {};

/// One hooked call: runs the process-wide and the module's hooks around forward.
class EMBER_API HookedCall {
 public:
  explicit HookedCall(Module& module);
  ~HookedCall();
  HookedCall(const HookedCall&) = delete;
  HookedCall& operator=(const HookedCall&) = delete;
  /// Forward pre-hooks (may replace `inputs`), then the backward-hook identity on input tensors.
  void before(std::vector<IValue>& inputs);
  /// Forward hooks (may replace `output`), then the backward-hook identity on output tensors.
  /// Returns whether `output` changed.
  bool after(const std::vector<IValue>& inputs, IValue& output);

 private:
  struct State;
  Module& module_;
  State* state_ = nullptr;
};

[[noreturn]] EMBER_API void throw_hooks_unsupported(const std::string& module_name);

template <typename T>
using Codec = IValueCodec<std::decay_t<T>>;

template <typename M, typename... Args, size_t... I>
decltype(auto) forward_from_ivalues(M& m, const std::vector<IValue>& in,
                                    std::index_sequence<I...>) {
  return m.forward(Codec<Args>::from(in[I])...);
}

template <typename M, typename... Args>
auto call_with_hooks(M& m, Args&&... args) -> decltype(m.forward(std::forward<Args>(args)...)) {
  using R = decltype(m.forward(std::forward<Args>(args)...));
  if constexpr (!(Codec<Args>::ok && ...) || !(std::is_void_v<R> || Codec<R>::ok) ||
                std::is_reference_v<R>) {
    throw_hooks_unsupported(m.name());
  } else {
    HookedCall call(m);
    std::vector<IValue> inputs{Codec<Args>::to(args)...};
    call.before(inputs);
    if constexpr (std::is_void_v<R>) {
      forward_from_ivalues<M, Args...>(m, inputs, std::index_sequence_for<Args...>{});
      IValue none;
      call.after(inputs, none);
    } else {
      R out = forward_from_ivalues<M, Args...>(m, inputs, std::index_sequence_for<Args...>{});
      IValue out_value = Codec<R>::to(out);
      if (call.after(inputs, out_value)) out = Codec<R>::from(out_value);
      return out;
    }
  }
}

}  // namespace detail

/// Calls `module.forward(args...)`, running the module's hooks as Python's Module.__call__ does.
template <typename M, typename... Args>
decltype(auto) call_module(M& module, Args&&... args) {
  if (EMBER_LIKELY(!module.has_call_hooks())) return module.forward(std::forward<Args>(args)...);
  return detail::call_with_hooks(module, std::forward<Args>(args)...);
}

}  // namespace ember::nn
