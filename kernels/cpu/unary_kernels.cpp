// CPU kernels for the unary rows of op_table.h (and the unary special rows).
#include "kernels/cpu/elementwise_kernels.h"

namespace ember {

void register_cpu_unary_kernels() {
  using namespace kernels;
#define EMBER_REGISTER_UNARY(name, Name, policy) register_cpu_elementwise<Name##Op, 1>(OpId::name);
  EMBER_UNARY_OPS(EMBER_REGISTER_UNARY)
#undef EMBER_REGISTER_UNARY
  register_cpu_elementwise<RoundOp, 1>(OpId::round);
  register_cpu_elementwise<RoundDecimalsOp, 1>(OpId::round_decimals);
  register_cpu_elementwise<ClampOp, 1>(OpId::clamp);
  register_cpu_elementwise<ClampMinOp, 1>(OpId::clamp_min);
  register_cpu_elementwise<ClampMaxOp, 1>(OpId::clamp_max);
  register_cpu_elementwise<GeluOp, 1>(OpId::gelu);
  register_cpu_elementwise<GeluTanhOp, 1>(OpId::gelu_tanh);
  register_cpu_elementwise<LogitOp, 1>(OpId::logit);
  register_cpu_elementwise<NanToNumOp, 1>(OpId::nan_to_num);
}

}  // namespace ember
