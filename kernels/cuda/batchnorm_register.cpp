// Registers the CUDA kernels of the batchnorm family (batch, instance and group normalisation,
// local response normalisation): kernels/cuda/batchnorm_kernels.cu, for the dtypes the CPU
// registers.
#include "kernels/common/batchnorm_params.h"
#include "src/dispatch/dispatch.h"

namespace ember {

namespace kernels::cuda {
void cuda_batch_norm_stats(ScalarType dtype, const BatchNormStatsParams& p);
void cuda_batch_norm_reduce(ScalarType dtype, const BatchNormReduceParams& p);
void cuda_batch_norm_apply(ScalarType dtype, const BatchNormApplyParams& p);
}  // namespace kernels::cuda

namespace cuda_detail {

void register_cuda_batchnorm_kernels() {
  using namespace kernels::cuda;
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::batch_norm_stats>(kCUDA, &cuda_batch_norm_stats, dtypes);
  register_kernel<OpId::batch_norm_reduce>(kCUDA, &cuda_batch_norm_reduce, dtypes);
  register_kernel<OpId::batch_norm_apply>(kCUDA, &cuda_batch_norm_apply, dtypes);
}

}  // namespace cuda_detail
}  // namespace ember
