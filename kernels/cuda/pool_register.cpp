// Registers the CUDA kernels of the pool family (pooling: max, average, adaptive, LP, unpooling,
// fractional).
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {

void register_cuda_pool_kernels() {}

}  // namespace ember::cuda_detail
