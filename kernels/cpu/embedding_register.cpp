// Registers the CPU kernels of embedding lookups, bags and their gradient
// (kernels/cpu/embedding_kernels.cpp).
#include "kernels/cpu/embedding_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_embedding_kernels() {
  const DtypeMask floats =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::embedding>(kCPU, &kernels::cpu_gather_rows, floats);
  register_kernel<OpId::embedding_bag>(kCPU, &kernels::cpu_bag_rows, floats);
  register_kernel<OpId::embedding_backward>(kCPU, &kernels::cpu_scatter_add_rows, floats);
}

}  // namespace ember
