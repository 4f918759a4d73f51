// CUDA kernels for the binary and ternary rows of op_table.h: the same functors and registrations
// as kernels/cpu/binary_kernels.cpp.
#include "kernels/cuda/elementwise_kernels.cuh"

namespace ember::cuda_detail {

namespace {
// where(cond, a, b): the condition is read as bool, a and b in the compute dtype.
void cuda_where(const ElementwiseLoop& L) {
  const kernels::WhereOp op{OpScalars{}};
  visit_dtype(L.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::cuda::cuda_kernel<T, bool, T, T>(L, op);
  });
}
}  // namespace

void register_cuda_binary_kernels() {
  using namespace kernels;
  using kernels::cuda::register_cuda_elementwise;
#define EMBER_REGISTER_BINARY(name, Name, policy) \
  register_cuda_elementwise<OpId::name, Name##Op, 2>();
  EMBER_BINARY_OPS(EMBER_REGISTER_BINARY)
#undef EMBER_REGISTER_BINARY
  // The special rows of arity 2 and 3 (those of arity 1 are in the unary file).
#define EMBER_REGISTER_SPECIAL(name, Name, arity) \
  register_cuda_elementwise<OpId::name, Name##Op, arity, (arity >= 2)>();
  EMBER_SPECIAL_FUNCTOR_OPS(EMBER_REGISTER_SPECIAL)
#undef EMBER_REGISTER_SPECIAL
  register_kernel<OpId::where>(kCUDA, &cuda_where, kAllDtypes);
}

}  // namespace ember::cuda_detail
