// Registers the CPU kernels of the resample family (kernels/cpu/resample_upsample.cpp and
// resample_grid_sample.cpp).
#include "kernels/cpu/resample_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_resample_kernels() {
  const DtypeMask floats =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::upsample>(kCPU, &kernels::cpu_upsample, floats);
  register_kernel<OpId::upsample_backward>(kCPU, &kernels::cpu_upsample_backward, floats);
  register_kernel<OpId::grid_sample>(kCPU, &kernels::cpu_grid_sample, floats);
  register_kernel<OpId::grid_sample_backward>(kCPU, &kernels::cpu_grid_sample_backward, floats);
}

}  // namespace ember
