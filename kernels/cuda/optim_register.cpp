// Registers the CUDA kernels of the optim family: the fused optimizer updates
// (kernels/cuda/optim_kernels.cu, one pass per parameter, many parameters per launch).
#include "kernels/common/optim_params.h"
#include "src/dispatch/dispatch.h"

namespace ember {

namespace kernels::cuda {
void cuda_sgd_update(ScalarType dtype, const SgdUpdateParams& p);
void cuda_adam_update(ScalarType dtype, const AdamUpdateParams& p);
void cuda_adagrad_update(ScalarType dtype, const AdagradUpdateParams& p);
void cuda_rmsprop_update(ScalarType dtype, const RmspropUpdateParams& p);
void cuda_adamax_update(ScalarType dtype, const AdamaxUpdateParams& p);
void cuda_adadelta_update(ScalarType dtype, const AdadeltaUpdateParams& p);
void cuda_nadam_update(ScalarType dtype, const NadamUpdateParams& p);
void cuda_radam_update(ScalarType dtype, const RadamUpdateParams& p);
}  // namespace kernels::cuda

namespace cuda_detail {

void register_cuda_optim_kernels() {
  using namespace kernels::cuda;
  const DtypeMask floats =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::sgd_update>(kCUDA, &cuda_sgd_update, floats);
  register_kernel<OpId::adam_update>(kCUDA, &cuda_adam_update, floats);
  register_kernel<OpId::adagrad_update>(kCUDA, &cuda_adagrad_update, floats);
  register_kernel<OpId::rmsprop_update>(kCUDA, &cuda_rmsprop_update, floats);
  register_kernel<OpId::adamax_update>(kCUDA, &cuda_adamax_update, floats);
  register_kernel<OpId::adadelta_update>(kCUDA, &cuda_adadelta_update, floats);
  register_kernel<OpId::nadam_update>(kCUDA, &cuda_nadam_update, floats);
  register_kernel<OpId::radam_update>(kCUDA, &cuda_radam_update, floats);
}

}  // namespace cuda_detail
}  // namespace ember
