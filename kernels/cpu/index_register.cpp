// Registers the CPU kernels of indexing gather/put/masked_fill (kernels/cpu/index_kernels.cpp).
// Gather, plain put and masked_fill move elements by width and the accumulating put visits every
// dtype, so each takes all dtypes.
#include "kernels/cpu/index_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_index_kernels() {
  register_kernel<OpId::index_gather>(kCPU, &kernels::cpu_index_gather, kAllDtypes);
  register_kernel<OpId::index_put>(kCPU, &kernels::cpu_index_put, kAllDtypes);
  register_kernel<OpId::masked_fill>(kCPU, &kernels::cpu_masked_fill, kAllDtypes);
}

}  // namespace ember
