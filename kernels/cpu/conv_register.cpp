// Registers the CPU kernels of the conv family (kernels/cpu/conv_kernels.h): convolution and
// transposed convolution, forward, backward data and backward weights.
#include "kernels/cpu/conv_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_conv_kernels() {
  const DtypeMask dtypes = dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kBFloat16);
  register_kernel<OpId::convolution>(kCPU, &kernels::cpu_convolution, dtypes);
  register_kernel<OpId::convolution_relu>(kCPU, &kernels::cpu_convolution_relu, dtypes);
  register_kernel<OpId::convolution_backward_data>(kCPU, &kernels::cpu_convolution_backward_data,
                                                   dtypes);
  register_kernel<OpId::convolution_backward_weights>(
      kCPU, &kernels::cpu_convolution_backward_weights, dtypes);
}

}  // namespace ember
