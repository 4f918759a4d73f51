// Registers the CPU kernels of the optim family (the fused optimizer updates (one pass per parameter, multi-tensor)).
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_optim_kernels() {}

}  // namespace ember
