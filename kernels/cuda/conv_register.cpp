// Registers the CUDA kernels of the conv family (convolution and transposed convolution (forward,
// backward data, backward weights)): cuDNN's (kernels/cuda/conv_cudnn.h), when Ember is built
// with it. Without cuDNN (CMakeLists.txt says so at configure time) nothing is registered, and a
// convolution of CUDA tensors is the dispatcher's error naming the missing kernel.
#include "src/dispatch/dispatch.h"

#ifdef EMBER_WITH_CUDNN
#include "kernels/cuda/conv_cudnn.h"
#endif

namespace ember::cuda_detail {

void register_cuda_conv_kernels() {
#ifdef EMBER_WITH_CUDNN
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::convolution>(kCUDA, &cuda_convolution, dtypes);
  register_kernel<OpId::convolution_backward_data>(kCUDA, &cuda_convolution_backward_data, dtypes);
  register_kernel<OpId::convolution_backward_weights>(kCUDA, &cuda_convolution_backward_weights,
                                                      dtypes);
#endif
}

}  // namespace ember::cuda_detail
