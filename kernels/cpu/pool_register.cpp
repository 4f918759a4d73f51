// Registers the CPU kernels of the pool family (pooling: max, average, adaptive, LP, unpooling, fractional).
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_pool_kernels() {}

}  // namespace ember
