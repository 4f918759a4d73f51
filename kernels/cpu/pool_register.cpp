// Registers the CPU kernels of the pool family (pooling: max, average, adaptive, LP, unpooling,
// fractional): kernels/cpu/pool_kernels.cpp.
#include "kernels/cpu/pool_kernels.h"
#include "kernels/cpu/pool_max2x2.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_pool_kernels() {
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::max_pool>(kCPU, &kernels::cpu_max_pool, dtypes);
  register_kernel<OpId::avg_pool>(kCPU, &kernels::cpu_avg_pool, dtypes);
  register_kernel<OpId::avg_pool_backward>(kCPU, &kernels::cpu_avg_pool_backward, dtypes);
  register_kernel<OpId::pool_scatter>(kCPU, &kernels::cpu_pool_scatter, dtypes);
  register_kernel<OpId::pool_gather>(kCPU, &kernels::cpu_pool_gather, dtypes);
  register_kernel<OpId::fractional_max_pool>(kCPU, &kernels::cpu_fractional_max_pool, dtypes);
  register_kernel<OpId::max_pool_2x2>(kCPU, &kernels::cpu_max_pool_2x2, dtypes);
  register_kernel<OpId::max_pool_2x2_backward>(kCPU, &kernels::cpu_max_pool_2x2_backward, dtypes);
}

}  // namespace ember
