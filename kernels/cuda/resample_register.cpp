// Registers the CUDA kernels of the resample family: interpolation (kernels/cuda/
// resample_kernels.cu) and grid_sample (resample_grid_sample.cu); affine_grid is composed of
// differentiable ops and needs none. The dtypes are the CPU's (kernels/cpu/resample_register.cpp).
#include "kernels/common/resample_params.h"
#include "src/dispatch/dispatch.h"

namespace ember::kernels::cuda {
void cuda_upsample(ScalarType dtype, const UpsampleParams& p);
void cuda_upsample_backward(ScalarType dtype, const UpsampleParams& p);
void cuda_grid_sample(ScalarType dtype, const GridSampleParams& p);
void cuda_grid_sample_backward(ScalarType dtype, const GridSampleParams& p);
}  // namespace ember::kernels::cuda

namespace ember::cuda_detail {

void register_cuda_resample_kernels() {
  using namespace kernels::cuda;
  const DtypeMask floats =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::upsample>(kCUDA, &cuda_upsample, floats);
  register_kernel<OpId::upsample_backward>(kCUDA, &cuda_upsample_backward, floats);
  register_kernel<OpId::grid_sample>(kCUDA, &cuda_grid_sample, floats);
  register_kernel<OpId::grid_sample_backward>(kCUDA, &cuda_grid_sample_backward, floats);
}

}  // namespace ember::cuda_detail
