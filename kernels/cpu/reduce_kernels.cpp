// CPU reduction kernels: the shared wrappers of kernels/common/reduce_kernels.h over the loops of
// reduce_loops.h. The along-a-dim kernels (softmax, scans, sort, topk, median) live in
// reduce_dim_kernels.cpp.
#include "kernels/common/reduce_kernels.h"
#include "kernels/cpu/reduce_loops.h"

namespace ember {

void register_cpu_reduce_dim_kernels();

namespace {
struct CpuReduce {
  template <class T, class Op>
  static void run(const ReduceLoop& L, const Op& op) {
    kernels::reduce_cpu<T>(L, op);
  }
  // The CPU loop merges partial results in index order, so ties keep the earlier index.
  template <class T, bool kMax>
  using Arg = kernels::ArgReduce<T, kMax>;
};
}  // namespace

void register_cpu_reduce_kernels() {
  kernels::ReduceKernels<CpuReduce>::register_sums_and_extrema(kCPU);
  kernels::ReduceKernels<CpuReduce>::register_statistics(kCPU);
  register_cpu_reduce_dim_kernels();
}

}  // namespace ember
