// The CUDA backend's one registration function, called from src/dispatch/dispatch.cpp when Ember
// is built with CUDA. It runs when the library loads, also on machines without a driver or GPU,
// so it only fills tables: no CUDA call happens here (the allocator and the kernels check for a
// device on first use and throw an ember::Error naming the op when there is none).
#include "ember/core/storage.h"

namespace ember {

namespace cuda_detail {
Allocator* cuda_allocator();
void register_cuda_copy();
void register_cuda_unary_kernels();
void register_cuda_binary_kernels();
void register_cuda_cast_kernels();
void register_cuda_reduce_kernels();
void register_cuda_reduce_stats_kernels();
void register_cuda_blas_kernels();
void register_cuda_norm_kernels();
void register_cuda_embedding_kernels();
void register_cuda_index_kernels();
void register_cuda_lapack_kernels();
void register_cuda_conv_kernels();
void register_cuda_pool_kernels();
void register_cuda_batchnorm_kernels();
void register_cuda_pad_kernels();
void register_cuda_resample_kernels();
void register_cuda_optim_kernels();
}  // namespace cuda_detail

void register_cuda_kernels() {
  using namespace cuda_detail;
  set_allocator(kCUDA, cuda_allocator());
  register_cuda_copy();
  register_cuda_unary_kernels();
  register_cuda_binary_kernels();
  register_cuda_cast_kernels();
  register_cuda_reduce_kernels();
  register_cuda_reduce_stats_kernels();
  register_cuda_blas_kernels();
  register_cuda_norm_kernels();
  register_cuda_embedding_kernels();
  register_cuda_index_kernels();
  register_cuda_lapack_kernels();
  register_cuda_conv_kernels();
  register_cuda_pool_kernels();
  register_cuda_batchnorm_kernels();
  register_cuda_pad_kernels();
  register_cuda_resample_kernels();
  register_cuda_optim_kernels();
}

}  // namespace ember
