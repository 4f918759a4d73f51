// Registers the CPU kernels of the pad family (padding in every mode, pixel (un)shuffle, fold/unfold, channel shuffle).
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_pad_kernels() {}

}  // namespace ember
