// Registers the CPU kernels of the batchnorm family (batch, instance and group normalisation, local
// response normalisation).
#include "kernels/cpu/batchnorm_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_batchnorm_kernels() {
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::batch_norm_stats>(kCPU, &kernels::cpu_batch_norm_stats, dtypes);
  register_kernel<OpId::batch_norm_reduce>(kCPU, &kernels::cpu_batch_norm_reduce, dtypes);
  register_kernel<OpId::batch_norm_apply>(kCPU, &kernels::cpu_batch_norm_apply, dtypes);
}

}  // namespace ember
