// The generic CPU elementwise loop. cpu_kernel<Out, In...>(loop, f) writes f(in...) to the output
// for every element, split over threads above kElementwiseGrain. The dense case is a plain indexed
// loop the compiler vectorises; everything else walks the coalesced dims with byte strides, with
// a dense inner loop whenever the innermost dim allows it.
#pragma once

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

#include "kernels/common/elementwise_loop.h"
#include "kernels/cpu/vec_math.h"
#include "src/core/parallel.h"

namespace ember::kernels {

template <class Out, class... In, class F, size_t... I>
EMBER_ALWAYS_INLINE void dense_run(char* const* data, int64_t begin, int64_t end, const F& f,
                                   std::index_sequence<I...>) {
  Out* __restrict__ out = reinterpret_cast<Out*>(data[0]) + begin;
  const int64_t n = end - begin;
  if constexpr (sizeof...(In) == 1 && std::is_same_v<Out, float> &&
                (std::is_same_v<In, float> && ...) && VecMath<F>::value) {
    vec_unary_f32(reinterpret_cast<const float*>(data[1]) + begin, out, n, f);
  } else {
    [[maybe_unused]] auto ins =
        std::make_tuple((reinterpret_cast<const In*>(data[I + 1]) + begin)...);
    for (int64_t i = 0; i < n; ++i) out[i] = f(std::get<I>(ins)[i]...);
  }
}

/// Elements per chunk of the broadcast path below: the repeated values stay in L1 (2 KiB per
/// 8-byte operand), and a dense_run call per 256 elements costs nothing measurable.
constexpr int64_t kBroadcastChunk = 256;

template <class Out, class... In, class F, size_t... I>
EMBER_ALWAYS_INLINE void strided_run(char** ptrs, const int64_t* inner_strides, int64_t n,
                                     const F& f, std::index_sequence<I...>) {
  const bool out_dense = inner_strides[0] == sizeof(Out);
  if (out_dense && ((inner_strides[I + 1] == sizeof(In)) && ... && true)) {
    dense_run<Out, In...>(ptrs, 0, n, f, std::index_sequence<I...>{});
    return;
  }
  // Dense but for inputs that do not move along the row (stride 0: a wrapped scalar in `x * 0.5`,
  // a [N, 1] column against [N, M]). Their value repeated into a small buffer lets the dense,
  // vectorised body run chunk by chunk instead of the strided scalar loop below (x + 1 over 16M
  // floats on one thread: 450 -> 244-310 us).
  if (out_dense && n >= 32 &&
      (((inner_strides[I + 1] == sizeof(In)) || inner_strides[I + 1] == 0) && ... && true)) {
    [[maybe_unused]] const int64_t fill = std::min(n, kBroadcastChunk);
    std::tuple<std::array<In, kBroadcastChunk>...> repeated;
    ((inner_strides[I + 1] == 0 ? std::fill_n(std::get<I>(repeated).data(), fill,
                                              *reinterpret_cast<const In*>(ptrs[I + 1]))
                                : nullptr),
     ...);
    for (int64_t off = 0; off < n; off += kBroadcastChunk) {
      char* chunk[1 + sizeof...(In)];
      chunk[0] = ptrs[0] + off * static_cast<int64_t>(sizeof(Out));
      ((chunk[I + 1] = inner_strides[I + 1] == 0
                           ? reinterpret_cast<char*>(std::get<I>(repeated).data())
                           : ptrs[I + 1] + off * static_cast<int64_t>(sizeof(In))),
       ...);
      dense_run<Out, In...>(chunk, 0, std::min(kBroadcastChunk, n - off), f,
                            std::index_sequence<I...>{});
    }
    return;
  }
  char* o = ptrs[0];
  const int64_t so = inner_strides[0];
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(o + i * so) =
        f(*reinterpret_cast<const In*>(ptrs[I + 1] + i * inner_strides[I + 1])...);
  }
}

template <class Out, class... In, class F>
void cpu_kernel(const ElementwiseLoop& L, const F& f) {
  constexpr int kN = 1 + sizeof...(In);
  using Seq = std::index_sequence_for<In...>;
  parallel_for(0, L.numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
    if (L.contiguous) {
      dense_run<Out, In...>(L.data, begin, end, f, Seq{});
      return;
    }
    // Position of `begin` in the iteration space, innermost dim first.
    int64_t idx[kMaxLoopDims];
    char* ptrs[kN];
    for (int k = 0; k < kN; ++k) ptrs[k] = L.data[k];
    int64_t rem = begin;
    for (int d = 0; d < L.ndim; ++d) {
      idx[d] = rem % L.sizes[d];
      rem /= L.sizes[d];
      for (int k = 0; k < kN; ++k) ptrs[k] += idx[d] * L.strides[k][d];
    }
    int64_t inner_strides[kN];
    for (int k = 0; k < kN; ++k) inner_strides[k] = L.ndim ? L.strides[k][0] : 0;
    int64_t left = end - begin;
    while (left > 0) {
      int64_t n = L.ndim ? std::min(L.sizes[0] - idx[0], left) : left;
      strided_run<Out, In...>(ptrs, inner_strides, n, f, Seq{});
      left -= n;
      if (left == 0 || L.ndim == 0) break;
      // Advance to the start of the next inner row, carrying into outer dims.
      for (int k = 0; k < kN; ++k) ptrs[k] -= idx[0] * L.strides[k][0];
      idx[0] = 0;
      int d = 1;
      for (; d < L.ndim; ++d) {
        ++idx[d];
        for (int k = 0; k < kN; ++k) ptrs[k] += L.strides[k][d];
        if (idx[d] < L.sizes[d]) break;
        for (int k = 0; k < kN; ++k) ptrs[k] -= idx[d] * L.strides[k][d];
        idx[d] = 0;
      }
    }
  });
}

}  // namespace ember::kernels
