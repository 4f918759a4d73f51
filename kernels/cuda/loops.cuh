// The generic CUDA elementwise kernel. cuda_kernel<Out, In...>(loop, f) writes f(in...) to the
// output for every element of an ElementwiseLoop (kernels/common/elementwise_loop.h), with the same
// functors the CPU loop uses. Two kernels per instantiation:
//   contiguous  every operand dense and 16-byte-alignable: each thread moves whole aligned vectors
//               (16 B of the widest operand: 4 floats, 8 halves, 2 doubles) per trip of a
//               grid-stride loop, then a scalar tail.
//   strided     anything else: an offset calculator turns the linear index into byte offsets over
//               the coalesced dims (innermost first); a 1-dim loop needs only a multiply, and the
//               div/mod chain runs in 32 bits whenever the element count allows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "kernels/common/elementwise_loop.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/index_math.h"

namespace ember::kernels::cuda {

// 256 threads a block; a grid of at most 8 blocks per SM (2048 resident threads per SM on sm_90,
// so one full wave) and a grid-stride loop for the rest: no tail wave, no launch per 2^31 elements.
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 2048 / kThreads;

inline unsigned grid_for(int64_t work_items) {
  int64_t blocks = (work_items + kThreads - 1) / kThreads;
  int64_t cap = static_cast<int64_t>(cuda_detail::sm_count()) * kBlocksPerSm;
  if (blocks > cap) blocks = cap;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

template <class T, int N>
struct alignas(sizeof(T) * N) AlignedVec {
  T v[N];
};

/// Elements per vector: 16 bytes of the widest operand (at most 8 elements).
template <class Out, class... In>
constexpr int vec_width() {
  size_t widest = sizeof(Out);
  ((widest = sizeof(In) > widest ? sizeof(In) : widest), ...);
  int n = static_cast<int>(16 / widest);
  return n > 8 ? 8 : (n < 1 ? 1 : n);
}

template <int V, class Out, class F, class... In>
__device__ __forceinline__ void apply_vec(Out* out, int64_t i, const F& f,
                                          const AlignedVec<In, V>&... x) {
  AlignedVec<Out, V> o;
#pragma unroll
  for (int j = 0; j < V; ++j) o.v[j] = f(x.v[j]...);
  reinterpret_cast<AlignedVec<Out, V>*>(out)[i] = o;
}

// No __restrict__: in-place ops pass the output as an input too. Each element is read before it
// is written by the same thread, so the aliasing is harmless, but it must not be promised away.
template <int V, class F, class Out, class... In>
__global__ void __launch_bounds__(kThreads)
    contiguous_kernel(int64_t n, F f, Out* out, const In*... in) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nvec = n / V;
  for (int64_t i = tid; i < nvec; i += stride)
    apply_vec<V, Out>(out, i, f, reinterpret_cast<const AlignedVec<In, V>*>(in)[i]...);
  for (int64_t i = nvec * V + tid; i < n; i += stride) out[i] = f(in[i]...);
}

template <class Out, class... In, class F, size_t... I>
__device__ __forceinline__ void apply_strided(const StridedGeometry<1 + sizeof...(In)>& g,
                                              const int64_t* off, const F& f,
                                              std::index_sequence<I...>) {
  *reinterpret_cast<Out*>(g.data[0] + off[0]) =
      f(*reinterpret_cast<const In*>(g.data[I + 1] + off[I + 1])...);
}

template <class F, class Out, class... In>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(int64_t n, F f, StridedGeometry<1 + sizeof...(In)> g) {
  constexpr int kN = 1 + sizeof...(In);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    int64_t off[kN];
    offsets_of<kN>(g, i, off);
    apply_strided<Out, In...>(g, off, f, std::index_sequence_for<In...>{});
  }
}

template <size_t Align>
inline bool is_aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % Align == 0;
}

template <int V, class Out, class... In, class F, size_t... I>
void launch_contiguous(const ElementwiseLoop& L, const F& f, cudaStream_t stream,
                       std::index_sequence<I...>) {
  const int64_t n = L.numel;
  contiguous_kernel<V, F, Out, In...><<<grid_for((n + V - 1) / V), kThreads, 0, stream>>>(
      n, f, reinterpret_cast<Out*>(L.data[0]), reinterpret_cast<const In*>(L.data[I + 1])...);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

/// Runs f over the loop on the current stream. Out and In... are the operand types (operand 0 is
/// the output); the functor must be trivially copyable and callable on the device.
template <class Out, class... In, class F>
void cuda_kernel(const ElementwiseLoop& L, const F& f) {
  constexpr int kN = 1 + sizeof...(In);
  const int64_t n = L.numel;
  if (n == 0) return;
  cudaStream_t stream = cuda_detail::current_stream();
  if (L.contiguous) {
    constexpr int V = vec_width<Out, In...>();
    bool aligned = is_aligned<sizeof(Out) * V>(L.data[0]);
    int k = 1;
    ((aligned = aligned && is_aligned<sizeof(In) * V>(L.data[k++])), ...);
    (void)k;
    if (aligned) {
      launch_contiguous<V, Out, In...>(L, f, stream, std::index_sequence_for<In...>{});
      return;
    }
  }
  StridedGeometry<kN> g;
  g.ndim = L.ndim;
  g.index32 = n <= static_cast<int64_t>(UINT32_MAX);
  for (int d = 0; d < kMaxLoopDims; ++d) {
    g.sizes[d] = d < L.ndim ? L.sizes[d] : 1;
    for (int k = 0; k < kN; ++k) g.strides[k][d] = d < L.ndim ? L.strides[k][d] : 0;
  }
  for (int k = 0; k < kN; ++k) g.data[k] = L.data[k];
  if (L.contiguous && L.ndim <= 1) {
    // Dense but misaligned (a view at an odd offset): one dim with element strides.
    g.ndim = 1;
    g.strides[0][0] = sizeof(Out);
    int k = 1;
    ((g.strides[k++][0] = sizeof(In)), ...);
    (void)k;
  }
  strided_kernel<F, Out, In...><<<grid_for(n), kThreads, 0, stream>>>(n, f, g);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::kernels::cuda
