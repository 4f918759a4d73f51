// CUDA kernels for the unary rows of op_table.h (and the unary special rows): the same functors
// and registrations as kernels/cpu/unary_kernels.cpp.
#include "kernels/cuda/elementwise_kernels.cuh"

namespace ember::cuda_detail {

void register_cuda_unary_kernels() {
  using namespace kernels;
  using kernels::cuda::register_cuda_elementwise;
#define EMBER_REGISTER_UNARY(name, Name, policy) register_cuda_elementwise<Name##Op, 1>(OpId::name);
  EMBER_UNARY_OPS(EMBER_REGISTER_UNARY)
#undef EMBER_REGISTER_UNARY
  register_cuda_elementwise<RoundOp, 1>(OpId::round);
  register_cuda_elementwise<RoundDecimalsOp, 1>(OpId::round_decimals);
  register_cuda_elementwise<ClampOp, 1>(OpId::clamp);
  register_cuda_elementwise<ClampMinOp, 1>(OpId::clamp_min);
  register_cuda_elementwise<ClampMaxOp, 1>(OpId::clamp_max);
  register_cuda_elementwise<GeluOp, 1>(OpId::gelu);
  register_cuda_elementwise<GeluTanhOp, 1>(OpId::gelu_tanh);
  register_cuda_elementwise<LogitOp, 1>(OpId::logit);
  register_cuda_elementwise<NanToNumOp, 1>(OpId::nan_to_num);
}

}  // namespace ember::cuda_detail
