// Registers the CUDA kernels of the optim family (the fused optimizer updates (one pass per parameter, multi-tensor)).
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {

void register_cuda_optim_kernels() {}

}  // namespace ember::cuda_detail
