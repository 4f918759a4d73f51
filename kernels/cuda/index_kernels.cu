// CUDA kernels of the indexing slots: index_gather, index_put (plain and accumulating) and
// masked_fill. The mirror of kernels/cpu/index_kernels.cpp, with the same operand layouts
// (kernels/cpu/index_kernels.h): operand 0 first, byte strides, an int64 index read in place with
// element offset (v < 0 ? v + size : v) * stride, stride = L.scalars.i[0], size = L.scalars.i[1].
// The ops (src/ops/indexing*.cpp) check every index against its range before a launch, so these
// kernels only move memory.
//
// One thread per element over a grid-stride loop; the strided offset calculator of loops.cuh turns
// the linear index into byte offsets (a multiply when the loop has one dim). Gather, plain put and
// masked_fill only move bytes, so they are instantiated per element width (4 kernels, not 10).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/common/visit.h"
#include "kernels/common/visit_width.h"
#include "kernels/cuda/loops.cuh"
#include "kernels/cuda/narrow_atomic_math.h"
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {

namespace {

using kernels::cuda::grid_for;
using kernels::cuda::kThreads;
using kernels::cuda::narrow_added;
using kernels::cuda::narrow_slot;
using kernels::cuda::NarrowSlot;
using kernels::cuda::offsets_of;
using kernels::cuda::StridedGeometry;

// Byte offset that index value v selects (see the file comment).
struct IndexOffset {
  int64_t stride_bytes, size;
  __device__ __forceinline__ int64_t operator()(const char* p) const {
    const int64_t v = *reinterpret_cast<const int64_t*>(p);
    return (v < 0 ? v + size : v) * stride_bytes;
  }
};

IndexOffset index_offset(const ElementwiseLoop& L) {
  return {L.scalars.i[0] * static_cast<int64_t>(element_size(L.out_dtype)), L.scalars.i[1]};
}

template <int kN>
StridedGeometry<kN> geometry_of(const ElementwiseLoop& L) {
  StridedGeometry<kN> g;
  g.ndim = L.ndim;
  g.index32 = L.numel <= static_cast<int64_t>(UINT32_MAX);
  for (int d = 0; d < kMaxLoopDims; ++d) {
    g.sizes[d] = d < L.ndim ? L.sizes[d] : 1;
    for (int k = 0; k < kN; ++k) g.strides[k][d] = d < L.ndim ? L.strides[k][d] : 0;
  }
  for (int k = 0; k < kN; ++k) g.data[k] = L.data[k];
  return g;
}

// Grid-stride loop bounds of the calling thread.
__device__ __forceinline__ int64_t first_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_step() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// ---- gather: out[i] = src[i][offset(index[i])] ----

template <class W>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(int64_t n, StridedGeometry<3> g, IndexOffset offset) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t off[3];
    offsets_of<3>(g, i, off);
    const char* src = g.data[1] + off[1] + offset(g.data[2] + off[2]);
    *reinterpret_cast<W*>(g.data[0] + off[0]) = *reinterpret_cast<const W*>(src);
  }
}

// ---- put: dst[i][offset(index[i])] = values[i] (of duplicates one lands, as in PyTorch) ----

template <class W>
__global__ void __launch_bounds__(kThreads)
    put_kernel(int64_t n, StridedGeometry<3> g, IndexOffset offset) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t off[3];
    offsets_of<3>(g, i, off);
    char* dst = g.data[0] + off[0] + offset(g.data[2] + off[2]);
    *reinterpret_cast<W*>(dst) = *reinterpret_cast<const W*>(g.data[1] + off[1]);
  }
}

// ---- accumulating put: duplicates add up through atomics ----

// Hardware atomics where they exist. The 16-bit float ones round the sum to nearest even once; the
// CPU adds in float, then rounds, which gives the same bits (float has more than twice their
// precision plus two bits, so rounding twice cannot differ from rounding once).
__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int32_t* p, int32_t v) {
  atomicAdd(reinterpret_cast<int*>(p), static_cast<int>(v));
}
// Two's complement: an unsigned add leaves the same bits a signed (wrapping) one would.
__device__ __forceinline__ void atomic_add(int64_t* p, int64_t v) {
  static_assert(sizeof(unsigned long long) == sizeof(int64_t));
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void atomic_add(Half* p, Half v) {
  atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(v.x));
}
__device__ __forceinline__ void atomic_add(BFloat16* p, BFloat16 v) {
  atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __ushort_as_bfloat16(v.x));
}

// 1- and 2-byte integers and bool have no atomic add: a compare-and-swap loop on the aligned
// 32-bit word holding the element rewrites only the element's bytes (narrow_atomic_math.h); a
// concurrent change to a neighbour makes the CAS fail and retry with the new word. The word never
// leaves the allocation: device blocks are 512-byte multiples (kernels/cuda/cuda_allocator.cpp).
template <class T>
__device__ __forceinline__ void atomic_add_narrow(T* p, T v) {
  const NarrowSlot slot = narrow_slot<T>(reinterpret_cast<uintptr_t>(p));
  unsigned int* word = reinterpret_cast<unsigned int*>(slot.word);
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const unsigned int next = narrow_added(assumed, slot, v);
    if (next == assumed) return;  // nothing changes (adding 0, or true into true)
    old = atomicCAS(word, assumed, next);
  } while (old != assumed);
}
__device__ __forceinline__ void atomic_add(uint8_t* p, uint8_t v) { atomic_add_narrow(p, v); }
__device__ __forceinline__ void atomic_add(int8_t* p, int8_t v) { atomic_add_narrow(p, v); }
__device__ __forceinline__ void atomic_add(int16_t* p, int16_t v) { atomic_add_narrow(p, v); }
__device__ __forceinline__ void atomic_add(bool* p, bool v) { atomic_add_narrow(p, v); }

template <class T>
__global__ void __launch_bounds__(kThreads)
    accumulate_kernel(int64_t n, StridedGeometry<3> g, IndexOffset offset) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t off[3];
    offsets_of<3>(g, i, off);
    T* dst = reinterpret_cast<T*>(g.data[0] + off[0] + offset(g.data[2] + off[2]));
    atomic_add(dst, *reinterpret_cast<const T*>(g.data[1] + off[1]));
  }
}

// ---- masked_fill: self[i] = value where mask[i] ----

// Writes only where the mask is true, as the CPU's strided loop: an untouched element keeps
// whatever another thread may be writing to it.
template <class W>
__global__ void __launch_bounds__(kThreads)
    masked_fill_kernel(int64_t n, StridedGeometry<2> g, W value) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t off[2];
    offsets_of<2>(g, i, off);
    if (*reinterpret_cast<const uint8_t*>(g.data[1] + off[1]) != 0)
      *reinterpret_cast<W*>(g.data[0] + off[0]) = value;
  }
}

void cuda_index_gather(const ElementwiseLoop& L) {
  if (L.numel == 0) return;
  const StridedGeometry<3> g = geometry_of<3>(L);
  const IndexOffset offset = index_offset(L);
  visit_width(element_size(L.out_dtype), [&](auto w) {
    using W = decltype(w);
    gather_kernel<W><<<grid_for(L.numel), kThreads, 0, current_stream()>>>(L.numel, g, offset);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void cuda_index_put(const ElementwiseLoop& L, bool accumulate) {
  if (L.numel == 0) return;
  const StridedGeometry<3> g = geometry_of<3>(L);
  const IndexOffset offset = index_offset(L);
  const unsigned grid = grid_for(L.numel);
  if (accumulate) {
    visit_dtype(L.out_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      accumulate_kernel<T><<<grid, kThreads, 0, current_stream()>>>(L.numel, g, offset);
    });
  } else {
    visit_width(element_size(L.out_dtype), [&](auto w) {
      using W = decltype(w);
      put_kernel<W><<<grid, kThreads, 0, current_stream()>>>(L.numel, g, offset);
    });
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void cuda_masked_fill(const ElementwiseLoop& L, const void* value) {
  if (L.numel == 0) return;
  const StridedGeometry<2> g = geometry_of<2>(L);
  visit_width(element_size(L.out_dtype), [&](auto w) {
    using W = decltype(w);
    W v;
    std::memcpy(&v, value, sizeof(W));  // host memory: the kernel gets the value by value
    masked_fill_kernel<W><<<grid_for(L.numel), kThreads, 0, current_stream()>>>(L.numel, g, v);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_cuda_index_kernels() {
  register_kernel<OpId::index_gather>(kCUDA, &cuda_index_gather, kAllDtypes);
  register_kernel<OpId::index_put>(kCUDA, &cuda_index_put, kAllDtypes);
  register_kernel<OpId::masked_fill>(kCUDA, &cuda_masked_fill, kAllDtypes);
}

}  // namespace ember::cuda_detail
