// Registers the CUDA kernels of the batchnorm family (batch, instance and group normalisation,
// local response normalisation).
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {

void register_cuda_batchnorm_kernels() {}

}  // namespace ember::cuda_detail
