// Registers the CPU kernels of the optim family: the fused optimizer updates
// (kernels/cpu/optim_*.cpp, one pass per parameter, many parameters per call).
#include "kernels/common/optim_params.h"
#include "src/dispatch/dispatch.h"

namespace ember {

namespace kernels {
void cpu_sgd_update(ScalarType dtype, const SgdUpdateParams& p);
void cpu_adam_update(ScalarType dtype, const AdamUpdateParams& p);
void cpu_adagrad_update(ScalarType dtype, const AdagradUpdateParams& p);
void cpu_rmsprop_update(ScalarType dtype, const RmspropUpdateParams& p);
void cpu_adamax_update(ScalarType dtype, const AdamaxUpdateParams& p);
void cpu_adadelta_update(ScalarType dtype, const AdadeltaUpdateParams& p);
void cpu_nadam_update(ScalarType dtype, const NadamUpdateParams& p);
void cpu_radam_update(ScalarType dtype, const RadamUpdateParams& p);
}  // namespace kernels

void register_cpu_optim_kernels() {
  const DtypeMask floats =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::sgd_update>(kCPU, &kernels::cpu_sgd_update, floats);
  register_kernel<OpId::adam_update>(kCPU, &kernels::cpu_adam_update, floats);
  register_kernel<OpId::adagrad_update>(kCPU, &kernels::cpu_adagrad_update, floats);
  register_kernel<OpId::rmsprop_update>(kCPU, &kernels::cpu_rmsprop_update, floats);
  register_kernel<OpId::adamax_update>(kCPU, &kernels::cpu_adamax_update, floats);
  register_kernel<OpId::adadelta_update>(kCPU, &kernels::cpu_adadelta_update, floats);
  register_kernel<OpId::nadam_update>(kCPU, &kernels::cpu_nadam_update, floats);
  register_kernel<OpId::radam_update>(kCPU, &kernels::cpu_radam_update, floats);
}

}  // namespace ember
