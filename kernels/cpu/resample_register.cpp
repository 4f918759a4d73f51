// Registers the CPU kernels of the resample family (interpolation (upsampling), grid_sample, affine_grid).
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_resample_kernels() {}

}  // namespace ember
