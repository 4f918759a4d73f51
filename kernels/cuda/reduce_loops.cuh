// The generic CUDA reduction: reduce_cuda<T>(loop, op) folds the reduced dims of a ReduceLoop
// (kernels/common/reduce_loop.h) into each output with the accumulator functors the CPU loop uses
// (kernels/common/reduce_ops.h). One kernel covers both layouts:
//   inner  the reduced dims are the fast ones (sum over the last dim, a full sum): threads along x
//          share one output, so a warp reads consecutive elements;
//   outer  the kept dims are the fast ones (sum over dim 0): threads along x own adjacent outputs
//          and threads along y share the reduced range, so loads stay coalesced.
// Each thread folds a strided share of the range with op.reduce, the block merges its lanes with
// op.combine through shared memory, and op.project writes the result. When the outputs alone
// cannot fill the GPU, grid.y splits each reduced range; the slices write accumulators to a
// workspace and a second kernel combines them in slice order.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>

#include "ember/core/storage.h"
#include "kernels/common/reduce_loop.h"
#include "kernels/common/reduce_ops.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/index_math.h"

namespace ember::kernels::cuda {

// Merges the `nlanes` accumulators of each slot in shared memory; lane 0 ends with the result.
// Pairs are adjacent lanes first (1, 2, 4, ...), so every combine(a, b) has a over lanes below b.
template <class A, class Op>
__device__ __forceinline__ A block_combine(const Op& op, A acc, A* smem, int lane, int nlanes,
                                           int slot, int nslots, bool lanes_along_x) {
  const int idx = lanes_along_x ? slot * nlanes + lane : lane * nslots + slot;
  const int lane_step = lanes_along_x ? 1 : nslots;
  smem[idx] = acc;
  __syncthreads();
  for (int s = 1; s < nlanes; s <<= 1) {
    if ((lane & (2 * s - 1)) == 0 && lane + s < nlanes)
      smem[idx] = op.combine(smem[idx], smem[idx + s * lane_step]);
    __syncthreads();
  }
  return smem[idx];
}

template <class T, class Op>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(ReduceGeometry g, Op op, typename Op::acc_t* __restrict__ partial) {
  using A = typename Op::acc_t;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* smem = reinterpret_cast<A*>(smem_raw);
  const int lane = g.along_x ? threadIdx.x : threadIdx.y;
  const int nlanes = g.along_x ? blockDim.x : blockDim.y;
  const int slot = g.along_x ? threadIdx.y : threadIdx.x;
  const int nslots = g.along_x ? blockDim.y : blockDim.x;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * nslots + slot;
  const int64_t r_begin = static_cast<int64_t>(blockIdx.y) * g.chunk;
  const int64_t r_end = min(g.red_numel, r_begin + g.chunk);

  A acc = op.identity();
  int64_t out_off = 0;
  if (o < g.out_numel) {
    int64_t in_off;
    output_offsets(g, o, in_off, out_off);
    const char* base = g.in + in_off;
    if (g.red_ndim == 1) {
      const int64_t s = g.red_strides[0];
      for (int64_t r = r_begin + lane; r < r_end; r += nlanes)
        acc = op.reduce(acc, *reinterpret_cast<const T*>(base + r * s), r);
    } else {
      for (int64_t r = r_begin + lane; r < r_end; r += nlanes)
        acc = op.reduce(acc, *reinterpret_cast<const T*>(base + reduced_offset(g, r)), r);
    }
  }
  acc = block_combine(op, acc, smem, lane, nlanes, slot, nslots, g.along_x);
  if (lane != 0 || o >= g.out_numel) return;
  if (partial != nullptr)
    partial[o * gridDim.y + blockIdx.y] = acc;
  else
    op.project(acc, g.out, out_off);
}

// Second pass: output o combines its `splits` accumulators (row o of `partial`), in order.
template <class Op>
__global__ void __launch_bounds__(kReduceThreads)
    combine_kernel(ReduceGeometry g, Op op, const typename Op::acc_t* __restrict__ partial,
                   int64_t splits) {
  using A = typename Op::acc_t;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* smem = reinterpret_cast<A*>(smem_raw);
  const int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  A acc = op.identity();
  if (o < g.out_numel) {
    // Each lane folds a contiguous run of slices so that the lane order is the slice order.
    const int64_t per = (splits + blockDim.x - 1) / blockDim.x;
    const int64_t s_end = min(splits, (threadIdx.x + 1) * per);
    for (int64_t s = threadIdx.x * per; s < s_end; ++s)
      acc = op.combine(acc, partial[o * splits + s]);
  }
  acc = block_combine(op, acc, smem, threadIdx.x, blockDim.x, threadIdx.y, blockDim.y, true);
  if (threadIdx.x != 0 || o >= g.out_numel) return;
  int64_t in_off, out_off;
  output_offsets(g, o, in_off, out_off);
  op.project(acc, g.out, out_off);
}

/// Reduces L (input of C++ type T) with accumulator functor op on the current stream.
template <class T, class Op>
void reduce_cuda(const ReduceLoop& L, const Op& op) {
  using A = typename Op::acc_t;
  if (L.out_numel == 0) return;
  ReduceGeometry g;
  g.out_ndim = L.out_ndim;
  g.red_ndim = L.red_ndim;
  for (int d = 0; d < kMaxLoopDims; ++d) {
    g.out_sizes[d] = L.out_sizes[d];
    g.out_in_strides[d] = L.out_in_strides[d];
    g.out_strides[d] = L.out_strides[d];
    g.red_sizes[d] = L.red_sizes[d];
    g.red_strides[d] = L.red_strides[d];
  }
  g.out_numel = L.out_numel;
  g.red_numel = L.red_numel;
  g.in = L.in;
  g.out[0] = L.out[0];
  g.out[1] = L.out[1];
  const ReducePlan plan = plan_reduction(L.out_numel, L.red_numel, L.red_strides[0],
                                         L.out_in_strides[0], cuda_detail::sm_count());
  g.along_x = plan.along_x;
  g.chunk = plan.chunk;
  const int64_t splits = plan.splits;
  const dim3 block = plan.along_x ? dim3(plan.lanes, plan.slots) : dim3(plan.slots, plan.lanes);
  const dim3 grid(static_cast<unsigned>(plan.blocks_x), static_cast<unsigned>(splits));
  const size_t smem = static_cast<size_t>(kReduceThreads) * sizeof(A);
  cudaStream_t stream = cuda_detail::current_stream();

  if (splits == 1) {
    reduce_kernel<T, Op><<<grid, block, smem, stream>>>(g, op, nullptr);
    EMBER_CUDA_CHECK(cudaGetLastError());
    return;
  }
  // The workspace goes back to the cache right after the launches; stream order keeps it valid
  // until both kernels have run.
  DataPtr ws =
      get_allocator(kCUDA)->allocate(static_cast<size_t>(L.out_numel * splits) * sizeof(A));
  struct Release {
    DataPtr& p;
    ~Release() { p.deleter(p.ptr, p.ctx); }
  } release{ws};
  A* partial = static_cast<A*>(ws.ptr);
  reduce_kernel<T, Op><<<grid, block, smem, stream>>>(g, op, partial);
  EMBER_CUDA_CHECK(cudaGetLastError());
  const int64_t lanes2 = std::min<int64_t>(pow2_ceil(splits), 32);
  const dim3 block2(lanes2, kReduceThreads / lanes2);
  const dim3 grid2(static_cast<unsigned>((L.out_numel + block2.y - 1) / block2.y));
  combine_kernel<Op><<<grid2, block2, smem, stream>>>(g, op, partial, splits);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::kernels::cuda
