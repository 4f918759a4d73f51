// The generic CPU elementwise loop. cpu_kernel<Out, In...>(loop, f) writes f(in...) to the output
// for every element, split over threads above kElementwiseGrain. The dense case is a plain indexed
// loop the compiler vectorises; everything else walks the coalesced dims with byte strides, with
// a dense inner loop whenever the innermost dim allows it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/common/elementwise_loop.h"
#include "kernels/cpu/streaming_store.h"
#include "kernels/cpu/vec_math.h"
#include "src/core/parallel.h"

namespace ember::kernels {

/// The type a dense loop loads an input as: bool inputs are read as bytes and converted, since
/// GCC has no vector type for a bool load and left every loop reading one scalar (where(c, a, b)
/// over 1.2M floats: 6.3 ms with a branch per element, 0.7 ms vectorised; logical_not 1.2 ms ->
/// 0.07 ms). Not for a bool converted to a number by a one-input row (a cast): GCC vectorises
/// neither form of that, and the byte form's scalar code is twice as slow.
template <class Out, class In, int kInputs>
struct DenseLoad {
  using type =
      std::conditional_t<std::is_same_v<In, bool> && (kInputs > 1 || std::is_same_v<Out, bool>),
                         uint8_t, In>;
};

/// Whether F's float16/bfloat16 form is its float form rounded: said by the functor
/// (unary_functors.h), or F has a vectorised float body (vec_math.h: sigmoid, silu, mish, gelu
/// compute in float too; tests/ops/vectorised_unary_test.cpp checks both kinds bit for bit).
template <class F, class = void>
struct NarrowIsFloatRounded : std::bool_constant<VecMath<F>::value> {};
template <class F>
struct NarrowIsFloatRounded<F, std::void_t<decltype(F::kNarrowIsFloatRounded)>>
    : std::bool_constant<F::kNarrowIsFloatRounded || VecMath<F>::value> {};

/// A unary op over n dense float16/bfloat16 elements (T) as float: each block widened, run
/// through the float form (the SLEEF body where there is one), rounded back; the same bits as
/// the op on T. The 16-bit form called libm per element and GCC kept some float16 loops scalar
/// (2^20 elements, one thread: bfloat16 exp 2.7 ms against 0.32 for float, float16 relu 5.7 ms).
template <class T, class F>
inline void unary_narrow_as_float(const uint16_t* in, uint16_t* out, int64_t n, const F& f) {
  constexpr int64_t kBlock = 256;
  float buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    for (int64_t j = 0; j < m; ++j) buf[j] = T::to_float_wide(in[b + j]);
    if constexpr (VecMath<F>::value) {
      vec_unary_f32(buf, buf, m, f);
    } else {
      for (int64_t j = 0; j < m; ++j) buf[j] = f(buf[j]);
    }
    for (int64_t j = 0; j < m; ++j) out[b + j] = static_cast<uint16_t>(T::from_float_wide(buf[j]));
  }
}

template <class Out, class... In, class F, size_t... I>
EMBER_ALWAYS_INLINE void dense_run(char* const* data, int64_t begin, int64_t end, const F& f,
                                   std::index_sequence<I...>) {
  Out* __restrict__ out = reinterpret_cast<Out*>(data[0]) + begin;
  const int64_t n = end - begin;
  if constexpr (sizeof...(In) == 1 && std::is_same_v<Out, float> &&
                (std::is_same_v<In, float> && ...) && VecMath<F>::value) {
    vec_unary_f32(reinterpret_cast<const float*>(data[1]) + begin, out, n, f);
  } else if constexpr (sizeof...(In) == 1 && is_reduced_float_v<Out> &&
                       (std::is_same_v<In, Out> && ...) && NarrowIsFloatRounded<F>::value) {
    unary_narrow_as_float<Out>(reinterpret_cast<const uint16_t*>(data[1]) + begin,
                               reinterpret_cast<uint16_t*>(out), n, f);
  } else {
    [[maybe_unused]] auto ins = std::make_tuple(
        (reinterpret_cast<const typename DenseLoad<Out, In, sizeof...(In)>::type*>(data[I + 1]) +
         begin)...);
    for (int64_t i = 0; i < n; ++i) out[i] = f(static_cast<In>(std::get<I>(ins)[i])...);
  }
}

/// Bytes per block of the streaming path below: small, so that the block's reads and its
/// streaming stores overlap in the core's out-of-order window. Computing 4 KiB and then
/// streaming it lost the whole gain (relu over 64 MiB on one EPYC core: plain stores 11.8 GB/s,
/// 4 KiB blocks 11.3-11.9, 256-byte blocks 14.5-16.3, streaming stores inside the loop 15.8).
constexpr int64_t kStreamBlockBytes = 256;

#ifdef EMBER_HAVE_STREAMING_STORES
/// dense_run for an output too large for the last-level cache (streaming_store.h): each block of
/// 256 bytes is computed into a buffer by the same dense body, then streamed to the output. Blocks
/// before the first 64-byte boundary and after the last whole block are copied with plain stores.
/// In-place is fine: a block's inputs are read before its output is written. Input k advances by
/// in_step[k] bytes an element: its size, or 0 for a value repeated in a buffer of at least one
/// block (the broadcast path of strided_run).
template <class Out, class... In, class F, size_t... I>
void dense_run_streaming(char* const* data, const int64_t* in_step, int64_t begin, int64_t end,
                         const F& f, std::index_sequence<I...>) {
  Out* out = reinterpret_cast<Out*>(data[0]);
  const auto misalign = reinterpret_cast<uintptr_t>(out + begin) % 64;
  if constexpr (sizeof...(In) == 1 && std::is_same_v<Out, float> &&
                (std::is_same_v<In, float> && ...) && VecMath<F>::value) {
    // The vectorised transcendental rows stream straight from their registers: they are compute
    // bound, and the buffer's extra pass cost exp over 64 MiB 8-14% on one core. The same vector
    // body computes every element, head and tail too (vec_unary_f32 pads its tail), so the bits
    // equal the plain path's.
    if (in_step[0] != 0) {
      const float* in = reinterpret_cast<const float*>(data[1]);
      const int64_t head =
          std::min(end, begin + static_cast<int64_t>((64 - misalign) % 64 / sizeof(float)));
      vec_unary_f32(in + begin, out + begin, head - begin, f);
      int64_t i = head;
      for (; i + vec::kLanes <= end; i += vec::kLanes)
        vec::stream(out + i, VecMath<F>::apply(vec::load(in + i)));
      vec_unary_f32(in + i, out + i, end - i, f);
      stream_fence();
      return;
    }
  }
  constexpr int64_t kBlock = kStreamBlockBytes / static_cast<int64_t>(sizeof(Out));
  alignas(64) Out buf[kBlock];
  int64_t step = misalign == 0 ? kBlock : static_cast<int64_t>((64 - misalign) / sizeof(Out));
  for (int64_t i = begin; i < end; i += step, step = kBlock) {
    const int64_t n = std::min(step, end - i);
    char* chunk[1 + sizeof...(In)];
    chunk[0] = reinterpret_cast<char*>(buf);
    ((chunk[I + 1] = data[I + 1] + i * in_step[I]), ...);
    dense_run<Out, In...>(chunk, 0, n, f, std::index_sequence<I...>{});
    if (n == kBlock && reinterpret_cast<uintptr_t>(out + i) % 64 == 0) {
      stream_copy(out + i, buf, sizeof(buf));
    } else {
      std::copy_n(buf, n, out + i);
    }
  }
  stream_fence();
}
#endif

/// Elements per chunk of the broadcast path below: the repeated values stay in L1 (2 KiB per
/// 8-byte operand), and a dense_run call per 256 elements costs nothing measurable.
constexpr int64_t kBroadcastChunk = 256;

template <class Out, class... In, class F, size_t... I>
EMBER_ALWAYS_INLINE void strided_run(char** ptrs, const int64_t* inner_strides, int64_t n,
                                     [[maybe_unused]] bool streaming, const F& f,
                                     std::index_sequence<I...>) {
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
    // At least one streaming block (the streaming path reads a whole block of repeats).
    constexpr int64_t kRepeat =
        std::max(kBroadcastChunk, kStreamBlockBytes / static_cast<int64_t>(sizeof(Out)));
    [[maybe_unused]] const int64_t fill = std::min(n, kRepeat);
    std::tuple<std::array<In, kRepeat>...> repeated;
    ((inner_strides[I + 1] == 0 ? std::fill_n(std::get<I>(repeated).data(), fill,
                                              *reinterpret_cast<const In*>(ptrs[I + 1]))
                                : nullptr),
     ...);
#ifdef EMBER_HAVE_STREAMING_STORES
    if constexpr (sizeof(Out) >= 4) {
      if (streaming && n >= 2 * kRepeat) {  // shorter rows would stream little of themselves
        char* base[1 + sizeof...(In)];
        base[0] = ptrs[0];
        ((base[I + 1] = inner_strides[I + 1] == 0
                            ? reinterpret_cast<char*>(std::get<I>(repeated).data())
                            : ptrs[I + 1]),
         ...);
        const int64_t step[] = {inner_strides[I + 1]..., 0};
        dense_run_streaming<Out, In...>(base, step, 0, n, f, std::index_sequence<I...>{});
        return;
      }
    }
#endif
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
  // Streaming stores for 4- and 8-byte outputs only: the big-tensor cases, without a second
  // copy of the dense body in every narrow-dtype kernel.
#ifdef EMBER_HAVE_STREAMING_STORES
  const bool streaming =
      sizeof(Out) >= 4 && static_cast<size_t>(L.numel) * sizeof(Out) >= streaming_store_threshold();
#else
  const bool streaming = false;
#endif
  parallel_for(0, L.numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
    if (L.contiguous) {
#ifdef EMBER_HAVE_STREAMING_STORES
      if constexpr (sizeof(Out) >= 4) {
        if (streaming) {
          const int64_t step[] = {static_cast<int64_t>(sizeof(In))..., 0};
          dense_run_streaming<Out, In...>(L.data, step, begin, end, f, Seq{});
          return;
        }
      }
#endif
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
      strided_run<Out, In...>(ptrs, inner_strides, n, streaming, f, Seq{});
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
