// DataParallel's scatter and gather over nested values (Python's scatter_gather.py, typed):
// scatter turns one argument into one value per replica, gather turns the replicas' results
// into one. Tensors are split and joined by the caller's functions (chunks on the replicas'
// devices; a cat on the output device); std::vector, std::tuple, std::pair, std::optional and
// std::map / std::unordered_map are walked element by element, keys kept; any other argument is
// given to every replica as it is. A result must be a tensor or such a container of tensors.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"

namespace ember {
namespace nn {
namespace parallel {
namespace detail {

/// How tensors are split and joined: `split` gives at most `replicas` chunks, each on its
/// replica's device (fewer when the tensor has fewer rows); `join` concatenates the replicas'
/// parts on the output device.
struct EMBER_API TensorRouting {
  size_t replicas = 1;
  std::function<std::vector<Tensor>(const Tensor&)> split;
  std::function<Tensor(const std::vector<Tensor>&)> join;
  /// Names the result that came back differently from different replicas.
  [[noreturn]] static void throw_mismatch(const std::string& what);
};

template <typename T, typename = void>
struct ScatterGather {
  // Not a tensor nor a container: every replica gets the same value.
  static std::vector<T> scatter(const T& value, const TensorRouting& r) {
    return std::vector<T>(r.replicas, value);
  }
  template <typename U = T>
  static T gather(const std::vector<T>&, const TensorRouting&) {
    static_assert(!std::is_same_v<U, U>,
                  "DataParallel: a replica's result must be a Tensor, or a std::vector, "
                  "std::tuple, std::pair, std::map or std::unordered_map of results");
    return {};
  }
};

template <>
struct ScatterGather<Tensor> {
  static std::vector<Tensor> scatter(const Tensor& t, const TensorRouting& r) { return r.split(t); }
  static Tensor gather(const std::vector<Tensor>& parts, const TensorRouting& r) {
    return r.join(parts);
  }
};

// The per-replica values of a container's elements (one scatter per element) regrouped by
// replica: as Python's zip, as many replicas as the element with the fewest chunks.
inline size_t fewest(const std::vector<size_t>& counts, size_t replicas) {
  size_t n = replicas;
  for (size_t c : counts) n = c < n ? c : n;
  return n;
}

template <typename T, typename A>
struct ScatterGather<std::vector<T, A>> {
  using V = std::vector<T, A>;
  static std::vector<V> scatter(const V& v, const TensorRouting& r) {
    std::vector<std::vector<T>> parts;
    std::vector<size_t> counts;
    for (const T& e : v) {
      parts.push_back(ScatterGather<T>::scatter(e, r));
      counts.push_back(parts.back().size());
    }
    std::vector<V> out(fewest(counts, r.replicas));
    for (size_t i = 0; i < out.size(); ++i)
      for (auto& p : parts) out[i].push_back(p[i]);
    return out;
  }
  static V gather(const std::vector<V>& outs, const TensorRouting& r) {
    for (const V& o : outs)
      if (o.size() != outs.front().size())
        TensorRouting::throw_mismatch("vectors of " + std::to_string(outs.front().size()) +
                                      " and " + std::to_string(o.size()) + " elements");
    V joined;
    for (size_t k = 0; k < outs.front().size(); ++k) {
      std::vector<T> parts;
      for (const V& o : outs) parts.push_back(o[k]);
      joined.push_back(ScatterGather<T>::gather(parts, r));
    }
    return joined;
  }
};

template <typename... Ts>
struct ScatterGather<std::tuple<Ts...>> {
  using V = std::tuple<Ts...>;
  static std::vector<V> scatter(const V& v, const TensorRouting& r) {
    return scatter_impl(v, r, std::index_sequence_for<Ts...>{});
  }
  static V gather(const std::vector<V>& outs, const TensorRouting& r) {
    return gather_impl(outs, r, std::index_sequence_for<Ts...>{});
  }

 private:
  template <size_t... I>
  static std::vector<V> scatter_impl(const V& v, const TensorRouting& r,
                                     std::index_sequence<I...>) {
    [[maybe_unused]] auto parts = std::make_tuple(ScatterGather<Ts>::scatter(std::get<I>(v), r)...);
    const size_t n = fewest({std::get<I>(parts).size()...}, r.replicas);
    std::vector<V> out;
    for (size_t i = 0; i < n; ++i) out.emplace_back(std::get<I>(parts)[i]...);
    return out;
  }
  template <size_t I>
  static auto column(const std::vector<V>& outs) {
    std::vector<std::tuple_element_t<I, V>> parts;
    for (const V& o : outs) parts.push_back(std::get<I>(o));
    return parts;
  }
  template <size_t... I>
  static V gather_impl(const std::vector<V>& outs, const TensorRouting& r,
                       std::index_sequence<I...>) {
    return V(ScatterGather<std::tuple_element_t<I, V>>::gather(column<I>(outs), r)...);
  }
};

template <typename A, typename B>
struct ScatterGather<std::pair<A, B>> {
  using V = std::pair<A, B>;
  using AsTuple = ScatterGather<std::tuple<A, B>>;
  static std::vector<V> scatter(const V& v, const TensorRouting& r) {
    std::vector<V> out;
    for (auto& t : AsTuple::scatter(std::tuple<A, B>(v.first, v.second), r))
      out.emplace_back(std::get<0>(t), std::get<1>(t));
    return out;
  }
  static V gather(const std::vector<V>& outs, const TensorRouting& r) {
    std::vector<std::tuple<A, B>> as_tuples;
    for (const V& o : outs) as_tuples.emplace_back(o.first, o.second);
    auto t = AsTuple::gather(as_tuples, r);
    return V(std::get<0>(t), std::get<1>(t));
  }
};

// std::optional: a value is scattered as itself, nullopt goes to every replica (Python's None);
// gather gives nullopt when every replica returned it.
template <typename T>
struct ScatterGather<std::optional<T>> {
  using V = std::optional<T>;
  static std::vector<V> scatter(const V& v, const TensorRouting& r) {
    if (!v) return std::vector<V>(r.replicas);
    std::vector<V> out;
    for (auto& part : ScatterGather<T>::scatter(*v, r)) out.emplace_back(std::move(part));
    return out;
  }
  static V gather(const std::vector<V>& outs, const TensorRouting& r) {
    size_t empty = 0;
    for (const V& o : outs) empty += o ? 0 : 1;
    if (empty == outs.size()) return std::nullopt;
    if (empty > 0) TensorRouting::throw_mismatch("std::nullopt where others returned a value");
    std::vector<T> parts;
    for (const V& o : outs) parts.push_back(*o);
    return ScatterGather<T>::gather(parts, r);
  }
};

// Maps: each value scattered, its key kept; gather joins the values key by key, and the
// replicas must return the same keys.
template <typename Map>
struct ScatterGatherMap {
  using K = typename Map::key_type;
  using T = typename Map::mapped_type;
  static std::vector<Map> scatter(const Map& m, const TensorRouting& r) {
    std::vector<std::pair<const K*, std::vector<T>>> parts;
    std::vector<size_t> counts;
    for (const auto& [key, value] : m) {
      parts.emplace_back(&key, ScatterGather<T>::scatter(value, r));
      counts.push_back(parts.back().second.size());
    }
    std::vector<Map> out(fewest(counts, r.replicas));
    for (size_t i = 0; i < out.size(); ++i)
      for (auto& [key, values] : parts) out[i].emplace(*key, values[i]);
    return out;
  }
  static Map gather(const std::vector<Map>& outs, const TensorRouting& r) {
    for (const Map& o : outs)
      if (o.size() != outs.front().size())
        TensorRouting::throw_mismatch("maps with different keys");
    Map joined;
    for (const auto& entry : outs.front()) {
      std::vector<T> parts;
      for (const Map& o : outs) {
        auto it = o.find(entry.first);
        if (it == o.end()) TensorRouting::throw_mismatch("maps with different keys");
        parts.push_back(it->second);
      }
      joined.emplace(entry.first, ScatterGather<T>::gather(parts, r));
    }
    return joined;
  }
};

template <typename K, typename T, typename C, typename A>
struct ScatterGather<std::map<K, T, C, A>> : ScatterGatherMap<std::map<K, T, C, A>> {};
template <typename K, typename T, typename H, typename E, typename A>
struct ScatterGather<std::unordered_map<K, T, H, E, A>>
    : ScatterGatherMap<std::unordered_map<K, T, H, E, A>> {};

}  // namespace detail
}  // namespace parallel
}  // namespace nn
}  // namespace ember
