// Activation checkpointing (Python's torch.utils.checkpoint): a function's intermediate results
// are not kept for backward; backward runs the function again to get them, with the random state
// of the first run, so dropout draws the same masks and the gradients equal the plain run's.
//
//   Tensor y = ember::utils::checkpoint([&](const Tensor& h) { return block->forward(h); }, x);
//   Tensor z = ember::utils::checkpoint_sequential(model, 4, x);   // 4 segments
//
// Gradients reach the inputs and every tensor the function uses that requires them (its module's
// parameters included), through backward() and autograd::grad alike, whether or not the inputs
// require grad (Python's use_reentrant=False behaviour). The function must compute the same way
// twice: no side effects that change its result between the runs.
#pragma once

#include <cstdint>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/modules/container/sequential.h"

namespace ember::utils {

namespace detail {
using CheckpointFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
EMBER_API std::vector<Tensor> checkpoint(CheckpointFn fn, const std::vector<Tensor>& inputs,
                                         bool preserve_rng_state);

template <class Fn, size_t... I>
decltype(auto) call_with(Fn& fn, const std::vector<Tensor>& xs, std::index_sequence<I...>) {
  return fn(xs[I]...);
}

template <class T>
constexpr bool is_tensor_arg = std::is_convertible_v<T, const Tensor&>;
}  // namespace detail

/// Runs fn(inputs...) without keeping its intermediate results; backward recomputes them. fn takes
/// the inputs as Tensors and returns a Tensor or a std::vector<Tensor>. A trailing bool argument
/// is preserve_rng_state (default true: the recomputation sees the first run's random state; pass
/// false when fn draws no random numbers, to skip saving it).
template <class Fn, class... Args>
auto checkpoint(Fn&& fn, Args&&... args) {
  constexpr size_t n_args = sizeof...(Args);
  static_assert(n_args > 0, "checkpoint: give at least one input tensor");
  using Last = std::decay_t<std::tuple_element_t<n_args - 1, std::tuple<Args...>>>;
  constexpr bool has_flag = std::is_same_v<Last, bool>;
  constexpr size_t n_tensors = has_flag ? n_args - 1 : n_args;
  std::vector<Tensor> inputs;
  bool preserve = true;
  auto take = [&](auto&& v) {
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, bool>) {
      preserve = v;
    } else {
      static_assert(detail::is_tensor_arg<decltype(v)>,
                    "checkpoint: the inputs must be Tensors (then an optional bool)");
      inputs.push_back(v);
    }
  };
  (take(std::forward<Args>(args)), ...);
  using Result = decltype(detail::call_with(fn, inputs, std::make_index_sequence<n_tensors>{}));
  static_assert(std::is_same_v<std::decay_t<Result>, Tensor> ||
                    std::is_same_v<std::decay_t<Result>, std::vector<Tensor>>,
                "checkpoint: the function must return a Tensor or a std::vector<Tensor>");
  auto wrapped = [f = std::forward<Fn>(fn)](const std::vector<Tensor>& xs) mutable {
    if constexpr (std::is_same_v<std::decay_t<Result>, Tensor>)
      return std::vector<Tensor>{detail::call_with(f, xs, std::make_index_sequence<n_tensors>{})};
    else
      return std::vector<Tensor>(detail::call_with(f, xs, std::make_index_sequence<n_tensors>{}));
  };
  std::vector<Tensor> outs = detail::checkpoint(std::move(wrapped), inputs, preserve);
  if constexpr (std::is_same_v<std::decay_t<Result>, Tensor>)
    return outs.at(0);
  else
    return outs;
}

/// Runs `sequential` on `input` in `segments` parts of (about) equal length: every part but the
/// last is checkpointed (Python's checkpoint_sequential). The modules take and return one Tensor.
EMBER_API Tensor checkpoint_sequential(nn::Sequential& sequential, int64_t segments,
                                       const Tensor& input, bool preserve_rng_state = true);

}  // namespace ember::utils
