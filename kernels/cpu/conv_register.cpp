// Registers the CPU kernels of the conv family (convolution and transposed convolution (forward, backward data, backward weights)).
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_conv_kernels() {}

}  // namespace ember
