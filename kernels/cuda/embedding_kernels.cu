// CUDA kernels of embedding lookups, bags and their gradient: the `embedding`, `embedding_bag` and
// `embedding_backward` slots (operands in kernels/common/embedding_params.h), numerically as the
// CPU kernels of kernels/cpu/embedding_kernels.cpp: bag sums in float32 (float64 for double), each
// bag's entries added in order.
//
// Layout: every kernel works on rows of d elements. A block of 256 threads is tx x ty: tx (a power
// of two, at most 256) threads along a row's elements, coalesced, and ty rows side by side; the
// grid is capped at one wave and loops over the remaining rows. A row shorter than a warp shares
// the warp with its neighbours instead of idling 32 - d lanes.
//
// The gradient scatter adds with atomics (hardware float/double/half/bfloat16 adds on sm_90), so
// with repeated indices the order of the adds, and the last bits of a float sum, may change from
// run to run. The overwriting form (max_norm's rescaling) has distinct rows and plain stores.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/core/half.h"
#include "kernels/common/embedding_params.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"
#include "src/dispatch/dispatch.h"

namespace ember::kernels::cuda {
namespace {

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr int kBlockThreads = 256;
constexpr int kBlocksPerSm = 2048 / kBlockThreads;  // one full wave on sm_90

// tx x ty threads a block over `rows` rows of `cols` elements (see the file comment).
struct RowPlan {
  dim3 block;
  unsigned grid;
};

RowPlan row_plan(int64_t rows, int64_t cols) {
  unsigned tx = 1;
  while (tx < static_cast<unsigned>(kBlockThreads) && static_cast<int64_t>(tx) < cols) tx *= 2;
  const unsigned ty = kBlockThreads / tx;
  int64_t blocks = (rows + ty - 1) / ty;
  const int64_t cap = static_cast<int64_t>(cuda_detail::sm_count()) * kBlocksPerSm;
  blocks = std::max<int64_t>(1, std::min(blocks, cap));
  return {dim3(tx, ty), static_cast<unsigned>(blocks)};
}

// The first row of this thread and the step between its rows.
__device__ __forceinline__ int64_t first_row() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
}
__device__ __forceinline__ int64_t row_step() {
  return static_cast<int64_t>(gridDim.x) * blockDim.y;
}

void check_launch() { EMBER_CUDA_CHECK(cudaGetLastError()); }

// ---- gather: rows copied as words of W bytes ----

template <class W>
__global__ void __launch_bounds__(kBlockThreads)
    gather_rows_kernel(const W* __restrict__ table, int64_t words, const int64_t* __restrict__ idx,
                       int64_t n, W* __restrict__ out) {
  for (int64_t k = first_row(); k < n; k += row_step()) {
    const W* src = table + idx[k] * words;
    W* dst = out + k * words;
    for (int64_t j = threadIdx.x; j < words; j += blockDim.x) dst[j] = src[j];
  }
}

template <class W>
void launch_gather(const GatherRowsParams& p, int64_t row_bytes) {
  const int64_t words = row_bytes / static_cast<int64_t>(sizeof(W));
  const RowPlan plan = row_plan(p.n, words);
  gather_rows_kernel<W><<<plan.grid, plan.block, 0, cuda_detail::current_stream()>>>(
      static_cast<const W*>(p.table), words, p.idx, p.n, static_cast<W*>(p.out));
  check_launch();
}

void cuda_gather_rows(ScalarType dtype, const GatherRowsParams& p) {
  if (p.n == 0 || p.d == 0) return;
  const int64_t row_bytes = p.d * static_cast<int64_t>(element_size(dtype));
  // The widest word that divides the row and both base addresses: 16 bytes moves a row of 128
  // floats in 8 loads per warp.
  const uint64_t align = static_cast<uint64_t>(row_bytes) | reinterpret_cast<uintptr_t>(p.table) |
                         reinterpret_cast<uintptr_t>(p.out);
  if (align % 16 == 0)
    launch_gather<uint4>(p, row_bytes);
  else if (align % 8 == 0)
    launch_gather<uint2>(p, row_bytes);
  else if (align % 4 == 0)
    launch_gather<uint32_t>(p, row_bytes);
  else
    launch_gather<uint16_t>(p, row_bytes);  // every floating dtype has 2-byte elements or wider
}

// ---- bags ----

template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    bag_sum_kernel(const T* __restrict__ table, int64_t d, const int64_t* __restrict__ idx,
                   const int64_t* __restrict__ start, int64_t bags, const T* __restrict__ w,
                   const double* __restrict__ div, T* __restrict__ out) {
  using A = acc_t<T>;
  for (int64_t b = first_row(); b < bags; b += row_step()) {
    const int64_t k0 = start[b], k1 = start[b + 1];
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
      A acc = A(0);
      for (int64_t k = k0; k < k1; ++k) {
        const A v = static_cast<A>(table[idx[k] * d + j]);
        acc += w ? static_cast<A>(w[k]) * v : v;
      }
      out[b * d + j] = static_cast<T>(div ? acc / static_cast<A>(div[b]) : acc);
    }
  }
}

// The first entry wins ties; a NaN wins only as the first entry (v > best is false for NaN).
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    bag_max_kernel(const T* __restrict__ table, int64_t d, const int64_t* __restrict__ idx,
                   const int64_t* __restrict__ start, int64_t bags, T* __restrict__ out,
                   int64_t* __restrict__ arg) {
  using A = acc_t<T>;
  for (int64_t b = first_row(); b < bags; b += row_step()) {
    const int64_t k0 = start[b], k1 = start[b + 1];
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
      if (k0 == k1) {
        out[b * d + j] = static_cast<T>(A(0));
        arg[b * d + j] = 0;
        continue;
      }
      int64_t row = idx[k0];
      A best = static_cast<A>(table[row * d + j]);
      for (int64_t k = k0 + 1; k < k1; ++k) {
        const int64_t r = idx[k];
        const A v = static_cast<A>(table[r * d + j]);
        if (v > best) {
          best = v;
          row = r;
        }
      }
      out[b * d + j] = table[row * d + j];
      arg[b * d + j] = row;
    }
  }
}

void cuda_bag_rows(ScalarType dtype, const BagSumRowsParams& p) {
  if (p.bags == 0 || p.d == 0) return;
  const RowPlan plan = row_plan(p.bags, p.d);
  cudaStream_t stream = cuda_detail::current_stream();
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) {
      const T* table = static_cast<const T*>(p.table);
      T* out = static_cast<T*>(p.out);
      if (p.mode == BagSumRowsParams::Mode::Max)
        bag_max_kernel<T><<<plan.grid, plan.block, 0, stream>>>(table, p.d, p.idx, p.bag_start,
                                                                p.bags, out, p.arg);
      else
        bag_sum_kernel<T><<<plan.grid, plan.block, 0, stream>>>(
            table, p.d, p.idx, p.bag_start, p.bags, static_cast<const T*>(p.w), p.div, out);
      check_launch();
    }
  });
}

// ---- scatter ----

__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(Half* p, float v) {
  atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(Half(v).x));
}
__device__ __forceinline__ void atomic_add(BFloat16* p, float v) {
  atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __ushort_as_bfloat16(BFloat16(v).x));
}

// No __restrict__ on dst and src: the caller may pass overlapping memory in the overwriting form
// as long as each entry reads only what it writes; every element is read before it is written.
template <class T, bool kAccumulate>
__global__ void __launch_bounds__(kBlockThreads)
    scatter_rows_kernel(T* dst, int64_t d, const T* src, const int64_t* __restrict__ idx,
                        const int64_t* __restrict__ src_row, const double* __restrict__ coef,
                        int64_t n) {
  using A = acc_t<T>;
  for (int64_t k = first_row(); k < n; k += row_step()) {
    T* o = dst + idx[k] * d;
    const T* s = src + (src_row ? src_row[k] : k) * d;
    const A c = coef ? static_cast<A>(coef[k]) : A(1);
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
      const A v = c * static_cast<A>(s[j]);
      if constexpr (kAccumulate)
        atomic_add(o + j, v);
      else
        o[j] = static_cast<T>(v);
    }
  }
}

void cuda_scatter_add_rows(ScalarType dtype, const ScatterAddRowsParams& p) {
  if (p.n == 0 || p.d == 0) return;
  const RowPlan plan = row_plan(p.n, p.d);
  cudaStream_t stream = cuda_detail::current_stream();
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) {
      T* dst = static_cast<T*>(p.dst);
      const T* src = static_cast<const T*>(p.src);
      if (p.accumulate)
        scatter_rows_kernel<T, true>
            <<<plan.grid, plan.block, 0, stream>>>(dst, p.d, src, p.idx, p.src_row, p.coef, p.n);
      else
        scatter_rows_kernel<T, false>
            <<<plan.grid, plan.block, 0, stream>>>(dst, p.d, src, p.idx, p.src_row, p.coef, p.n);
      check_launch();
    }
  });
}

}  // namespace
}  // namespace ember::kernels::cuda

namespace ember::cuda_detail {

void register_cuda_embedding_kernels() {
  using namespace kernels::cuda;
  const DtypeMask floats =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::embedding>(kCUDA, &cuda_gather_rows, floats);
  register_kernel<OpId::embedding_bag>(kCUDA, &cuda_bag_rows, floats);
  register_kernel<OpId::embedding_backward>(kCUDA, &cuda_scatter_add_rows, floats);
}

}  // namespace ember::cuda_detail
