// Registers the CPU kernels of layer_norm / rms_norm (kernels/cpu/norm_kernels.cpp).
#include "kernels/cpu/norm_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_norm_kernels() {
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::layer_norm>(kCPU, &kernels::cpu_row_norm_forward, dtypes);
  register_kernel<OpId::layer_norm_backward>(kCPU, &kernels::cpu_row_norm_backward, dtypes);
}

}  // namespace ember
