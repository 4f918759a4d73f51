// The kernel interface behind the fused optimizer updates (the `*_update` rows of
// include/ember/ops/op_table_optim.h). One call updates a list of parameters: each entry is a
// dense parameter, its dense gradient and its dense state buffers, all of `numel` elements of the
// dtype the kernel is called with and in the memory of the device it is registered for. The
// tensor list itself (the OptimTensor array) is host memory.
//
// Every entry is updated as the optimizer's single-tensor op chain (src/optim/*.cpp) would update
// it, op by op: the same float operations in the same order in the compute type (float for
// float32 and the 16-bit types, double for float64), each intermediate rounded to the dtype where
// the op chain stores one, scalar operands (x.mul_(beta)) rounded to the dtype as a wrapped scalar
// is, and alpha/value factors (x.add_(y, alpha), addcmul's value) taken in the compute type. So
// the fused and the op-chain results are equal bit for bit in every dtype.
//
// Every double below is computed by the caller exactly as the op chain computes it (the kernel
// only converts it), so host and device agree on the scalars.
#pragma once

#include <cstdint>

namespace ember {

/// One parameter of a multi-tensor update. The meaning of state[] and scalar[] is given by each
/// family's params struct; unused slots are null / 0.
struct OptimTensor {
  void* param = nullptr;
  const void* grad = nullptr;
  void* state[3] = {nullptr, nullptr, nullptr};
  int64_t numel = 0;
  double scalar[4] = {0, 0, 0, 0};
  /// SGD: the momentum buffer is new; it is set to the (decayed) gradient instead of updated.
  bool first = false;
};

/// The list every family's params start with.
struct OptimTensorList {
  const OptimTensor* tensors = nullptr;
  int64_t count = 0;
};

/// SGD (momentum, dampening, nesterov, weight_decay, maximize).
/// state[0]: momentum buffer (needed when momentum != 0).
struct SgdUpdateParams {
  OptimTensorList list;
  double lr = 0, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
};

/// Adam and AdamW (amsgrad, maximize, weight_decay; decoupled = AdamW's decay).
/// state: exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad). scalar[0]: step size
/// -(lr / bias_correction1); scalar[1]: sqrt(bias_correction2).
struct AdamUpdateParams {
  OptimTensorList list;
  double beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  double one_minus_beta1 = 0, one_minus_beta2 = 0;
  double decay_factor = 1;  ///< AdamW: 1 - lr * weight_decay
  bool amsgrad = false, maximize = false, decoupled = false;
};

/// Adagrad. state[0]: sum. scalar[0]: -clr (the decayed learning rate, negated).
struct AdagradUpdateParams {
  OptimTensorList list;
  double eps = 0, weight_decay = 0;
  bool maximize = false;
};

/// RMSprop (centered, momentum). state: square_avg, grad_avg (centered), momentum_buffer
/// (momentum > 0).
struct RmspropUpdateParams {
  OptimTensorList list;
  double lr = 0, alpha = 0, one_minus_alpha = 0, eps = 0, weight_decay = 0, momentum = 0;
  bool centered = false, maximize = false;
};

/// Adamax. state: exp_avg, exp_inf. scalar[0]: -(lr / bias_correction).
struct AdamaxUpdateParams {
  OptimTensorList list;
  double beta1 = 0, one_minus_beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  bool maximize = false;
};

/// Adadelta. state: square_avg, acc_delta.
struct AdadeltaUpdateParams {
  OptimTensorList list;
  double lr = 0, rho = 0, one_minus_rho = 0, eps = 0, weight_decay = 0;
  bool maximize = false;
};

/// NAdam. state: exp_avg, exp_avg_sq. scalar[0]: bias_correction2; scalar[1]: the gradient's
/// step -lr (1 - mu) / (1 - mu_product); scalar[2]: exp_avg's step
/// -lr mu_next / (1 - mu_product_next).
struct NadamUpdateParams {
  OptimTensorList list;
  double beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0, eps = 0, weight_decay = 0;
};

/// RAdam. state: exp_avg, exp_avg_sq. scalar[0]: bias_correction1; scalar[1]:
/// sqrt(bias_correction2); scalar[2]: the rectification term; scalar[3]: 1 when rectified
/// (rho_t > 5), else 0.
struct RadamUpdateParams {
  OptimTensorList list;
  double lr = 0, beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0, eps = 0,
         weight_decay = 0;
};

}  // namespace ember
