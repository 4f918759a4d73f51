// CUDA reduction kernels for the sum, prod, amax, amin, all and any slots: the shared wrappers of
// kernels/common/reduce_kernels.h over reduce_loops.cuh (the statistics are in
// reduce_stats_kernels.cu, to keep nvcc's compile units small).
#include "kernels/cuda/reduce_backend.cuh"

namespace ember::cuda_detail {

void register_cuda_reduce_kernels() {
  kernels::ReduceKernels<CudaReduce>::register_sums_and_extrema(kCUDA);
}

}  // namespace ember::cuda_detail
