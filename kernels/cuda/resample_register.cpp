// Registers the CUDA kernels of the resample family (interpolation (upsampling), grid_sample,
// affine_grid).
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {

void register_cuda_resample_kernels() {}

}  // namespace ember::cuda_detail
