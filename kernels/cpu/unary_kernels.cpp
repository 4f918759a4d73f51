// CPU kernels for the unary rows of op_table.h (and the unary special rows).
#include "kernels/cpu/elementwise_kernels.h"

namespace ember {

void register_cpu_unary_kernels() {
  using namespace kernels;
#define EMBER_REGISTER_UNARY(name, Name, policy) \
  register_cpu_elementwise<OpId::name, Name##Op, 1>();
  EMBER_UNARY_OPS(EMBER_REGISTER_UNARY)
#undef EMBER_REGISTER_UNARY
  // The special rows of arity 1 (the others are in the binary file).
#define EMBER_REGISTER_SPECIAL(name, Name, arity) \
  register_cpu_elementwise<OpId::name, Name##Op, arity, (arity == 1)>();
  EMBER_SPECIAL_FUNCTOR_OPS(EMBER_REGISTER_SPECIAL)
#undef EMBER_REGISTER_SPECIAL
}

}  // namespace ember
