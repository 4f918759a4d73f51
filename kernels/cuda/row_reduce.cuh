// Sums across the threads that share one row, for kernels that give each row a warp or a block
// (kernels/cuda/norm_kernels.cu). Every participating thread gets the total, and the same bits:
// the butterfly shuffle adds a+b on one lane and b+a on its partner, which IEEE addition makes
// equal, so no broadcast step is needed.
#pragma once

#include <cuda_runtime.h>

namespace ember::kernels::cuda {

constexpr int kWarpSize = 32;

template <class A>
__device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

/// One warp per row: lane `tid` of 32 strides over the row. All 32 lanes must call sum/sum2.
template <class A>
struct WarpRowReduce {
  int tid;
  static constexpr int nthreads = kWarpSize;
  __device__ A sum(A v) const { return warp_sum(v); }
  __device__ void sum2(A& a, A& b) const {
    a = warp_sum(a);
    b = warp_sum(b);
  }
};

/// One block per row: thread `tid` of `nthreads` (a multiple of 32, at most 1024) strides over
/// the row; `smem` holds 2·32 accumulators of shared memory. Every thread of the block must call
/// sum/sum2 (they synchronise the block). Warps fold their lanes, lane 0 of each warp stores its
/// warp's sum, then every warp folds those (zero-padded to 32) itself.
template <class A>
struct BlockRowReduce {
  int tid;
  int nthreads;
  A* smem;

  __device__ A sum(A v) const {
    const int lane = tid % kWarpSize, warp = tid / kWarpSize;
    v = warp_sum(v);
    __syncthreads();  // the previous call's readers are done with smem
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    return warp_sum(lane < nthreads / kWarpSize ? smem[lane] : A(0));
  }
  __device__ void sum2(A& a, A& b) const {
    const int lane = tid % kWarpSize, warp = tid / kWarpSize;
    a = warp_sum(a);
    b = warp_sum(b);
    __syncthreads();
    if (lane == 0) {
      smem[warp] = a;
      smem[kWarpSize + warp] = b;
    }
    __syncthreads();
    const bool live = lane < nthreads / kWarpSize;
    a = warp_sum(live ? smem[lane] : A(0));
    b = warp_sum(live ? smem[kWarpSize + lane] : A(0));
  }
};

}  // namespace ember::kernels::cuda
