// CPU kernels for the binary and ternary rows of op_table.h.
#include "kernels/cpu/elementwise_kernels.h"

namespace ember {

namespace {
// where(cond, a, b): the condition is read as bool, a and b in the compute dtype.
void cpu_where(const ElementwiseLoop& L) {
  const kernels::WhereOp op{OpScalars{}};
  visit_dtype(L.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::cpu_kernel<T, bool, T, T>(L, op);
  });
}
}  // namespace

void register_cpu_binary_kernels() {
  using namespace kernels;
#define EMBER_REGISTER_BINARY(name, Name, policy) register_cpu_elementwise<Name##Op, 2>(OpId::name);
  EMBER_BINARY_OPS(EMBER_REGISTER_BINARY)
#undef EMBER_REGISTER_BINARY
  register_cpu_elementwise<AddOp, 2>(OpId::add);
  register_cpu_elementwise<SubOp, 2>(OpId::sub);
  register_cpu_elementwise<DivOp, 2>(OpId::div);
  register_cpu_elementwise<DivTruncOp, 2>(OpId::div_trunc);
  register_cpu_elementwise<DivFloorOp, 2>(OpId::div_floor);
  register_cpu_elementwise<ClampTensorOp, 3>(OpId::clamp_tensor);
  register_cpu_elementwise<LerpOp, 3>(OpId::lerp);
  register_cpu_elementwise<AddcmulOp, 3>(OpId::addcmul);
  register_cpu_elementwise<AddcdivOp, 3>(OpId::addcdiv);
  register_kernel(OpId::where, kCPU, reinterpret_cast<void*>(&cpu_where), kAllDtypes);
}

}  // namespace ember
