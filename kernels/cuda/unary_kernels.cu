// CUDA kernels for the unary rows of op_table.h (and the unary special rows): the same functors
// and registrations as kernels/cpu/unary_kernels.cpp.
#include "kernels/cuda/elementwise_kernels.cuh"

namespace ember::cuda_detail {

void register_cuda_unary_kernels() {
  using namespace kernels;
  using kernels::cuda::register_cuda_elementwise;
#define EMBER_REGISTER_UNARY(name, Name, policy) \
  register_cuda_elementwise<OpId::name, Name##Op, 1>();
  EMBER_UNARY_OPS(EMBER_REGISTER_UNARY)
#undef EMBER_REGISTER_UNARY
  // The special rows of arity 1 (the others are in the binary file).
#define EMBER_REGISTER_SPECIAL(name, Name, arity) \
  register_cuda_elementwise<OpId::name, Name##Op, arity, (arity == 1)>();
  EMBER_SPECIAL_FUNCTOR_OPS(EMBER_REGISTER_SPECIAL)
#undef EMBER_REGISTER_SPECIAL
}

}  // namespace ember::cuda_detail
