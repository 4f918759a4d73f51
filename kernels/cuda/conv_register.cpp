// Registers the CUDA kernels of the conv family (convolution and transposed convolution (forward,
// backward data, backward weights)).
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {

void register_cuda_conv_kernels() {}

}  // namespace ember::cuda_detail
