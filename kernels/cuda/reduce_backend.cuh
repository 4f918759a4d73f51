// The CUDA backend of the shared reduction kernels (kernels/common/reduce_kernels.h): its loop and
// its argmax/argmin accumulator.
#pragma once

#include "kernels/common/reduce_kernels.h"
#include "kernels/cuda/reduce_loops.cuh"

namespace ember::cuda_detail {

// The GPU folds interleaved positions per lane, so merging two partial results cannot rely on
// "a covers the earlier indices" as the CPU loop does: a tie goes to the smaller index instead,
// which is the same first-occurrence rule (and a NaN still beats everything, the first NaN wins).
template <class T, bool kMax>
struct ArgReduceAnyOrder : kernels::ArgReduce<T, kMax> {
  using Base = kernels::ArgReduce<T, kMax>;
  using acc_t = typename Base::acc_t;
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    if (Base::better(b.v, a.v)) return b;
    if (Base::better(a.v, b.v)) return a;
    return b.i < a.i ? b : a;
  }
};

struct CudaReduce {
  template <class T, class Op>
  static void run(const ReduceLoop& L, const Op& op) {
    kernels::cuda::reduce_cuda<T>(L, op);
  }
  template <class T, bool kMax>
  using Arg = ArgReduceAnyOrder<T, kMax>;
};

}  // namespace ember::cuda_detail
