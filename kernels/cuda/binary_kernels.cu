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
  register_cuda_elementwise<Name##Op, 2>(OpId::name);
  EMBER_BINARY_OPS(EMBER_REGISTER_BINARY)
#undef EMBER_REGISTER_BINARY
  register_cuda_elementwise<AddOp, 2>(OpId::add);
  register_cuda_elementwise<SubOp, 2>(OpId::sub);
  register_cuda_elementwise<DivOp, 2>(OpId::div);
  register_cuda_elementwise<DivTruncOp, 2>(OpId::div_trunc);
  register_cuda_elementwise<DivFloorOp, 2>(OpId::div_floor);
  register_cuda_elementwise<ClampTensorOp, 3>(OpId::clamp_tensor);
  register_cuda_elementwise<LerpOp, 3>(OpId::lerp);
  register_cuda_elementwise<AddcmulOp, 3>(OpId::addcmul);
  register_cuda_elementwise<AddcdivOp, 3>(OpId::addcdiv);
  register_kernel(OpId::where, kCUDA, reinterpret_cast<void*>(&cuda_where), kAllDtypes);
}

}  // namespace ember::cuda_detail
