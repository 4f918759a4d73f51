// CUDA reduction kernels for the argmax, argmin, var and norm slots: the shared wrappers of
// kernels/common/reduce_kernels.h over reduce_loops.cuh, in a file of their own to keep nvcc's
// compile units small.
#include "kernels/cuda/reduce_backend.cuh"

namespace ember::cuda_detail {

void register_cuda_reduce_stats_kernels() {
  kernels::ReduceKernels<CudaReduce>::register_statistics(kCUDA);
}

}  // namespace ember::cuda_detail
