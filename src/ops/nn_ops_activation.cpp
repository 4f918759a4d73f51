// The ATen-level activations of nn_ops.h that the elementwise table does not generate: each is
// the nn::functional form with ATen's Scalar arguments, and the in-place `_` form is the same call
// with inplace set (the functional form writes into its input and returns it).
#include "ember/nn/functional/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/nn_ops.h"
#include "src/core/check.h"
#include "src/nn/functional/activation_common.h"

namespace ember {
namespace {
namespace F = nn::functional;

Tensor hardtanh_impl(const Tensor& self, const Scalar& min_val, const Scalar& max_val,
                     bool inplace) {
  return F::hardtanh(self, F::HardtanhFuncOptions()
                               .min_val(min_val.toDouble())
                               .max_val(max_val.toDouble())
                               .inplace(inplace));
}

// ATen's elu(x; alpha, scale, input_scale) = scale·x for x > 0, scale·alpha·(exp(input_scale·x)
// - 1) otherwise. With unit scales it is the functional elu (one node, PyTorch's gradient at the
// kink); other scales are composed, with the negative branch (PyTorch's choice) at x = 0.
Tensor scaled_elu(const Tensor& x, double alpha, double scale, double input_scale) {
  // The negative branch only ever sees x <= 0: expm1 of a large positive x would be inf, and
  // where's gradient 0 * inf a NaN.
  const Tensor negative = alpha * expm1(x.clamp_max(0) * input_scale);
  return scale * where(x > 0, x, negative);
}

bool unit_scales(const Scalar& scale, const Scalar& input_scale) {
  return scale.toDouble() == 1 && input_scale.toDouble() == 1;
}

F::RReLUFuncOptions rrelu_options(const Scalar& lower, const Scalar& upper, bool training,
                                  bool inplace) {
  return F::RReLUFuncOptions()
      .lower(lower.toDouble())
      .upper(upper.toDouble())
      .training(training)
      .inplace(inplace);
}
}  // namespace

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return hardtanh_impl(self, min_val, max_val, false);
}
const Tensor& hardtanh_(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  hardtanh_impl(self, min_val, max_val, true);
  return self;
}
Tensor relu6(const Tensor& self) { return F::relu6(self, F::ReLU6FuncOptions(false)); }
const Tensor& relu6_(const Tensor& self) {
  F::relu6(self, F::ReLU6FuncOptions(true));
  return self;
}
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  return F::leaky_relu(self, F::LeakyReLUFuncOptions().negative_slope(negative_slope.toDouble()));
}
const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope) {
  F::leaky_relu(self,
                F::LeakyReLUFuncOptions().negative_slope(negative_slope.toDouble()).inplace(true));
  return self;
}

Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale,
           const Scalar& input_scale) {
  if (unit_scales(scale, input_scale))
    return F::elu(self, F::ELUFuncOptions().alpha(alpha.toDouble()));
  F::detail::check_floating(self, "elu");
  return scaled_elu(self, alpha.toDouble(), scale.toDouble(), input_scale.toDouble());
}
const Tensor& elu_(const Tensor& self, const Scalar& alpha, const Scalar& scale,
                   const Scalar& input_scale) {
  if (unit_scales(scale, input_scale)) {
    F::elu(self, F::ELUFuncOptions().alpha(alpha.toDouble()).inplace(true));
    return self;
  }
  F::detail::check_floating(self, "elu_");
  // Computed from a copy, so the composed graph never reads the values being overwritten.
  self.copy_(scaled_elu(self.clone(), alpha.toDouble(), scale.toDouble(), input_scale.toDouble()));
  return self;
}
Tensor selu(const Tensor& self) { return F::selu(self, F::SELUFuncOptions(false)); }
const Tensor& selu_(const Tensor& self) {
  F::selu(self, F::SELUFuncOptions(true));
  return self;
}
Tensor celu(const Tensor& self, const Scalar& alpha) {
  return F::celu(self, F::CELUFuncOptions().alpha(alpha.toDouble()));
}
const Tensor& celu_(const Tensor& self, const Scalar& alpha) {
  F::celu(self, F::CELUFuncOptions().alpha(alpha.toDouble()).inplace(true));
  return self;
}
const Tensor& gelu_(const Tensor& self, std::string_view approximate) {
  return gelu_out(self, self, approximate);
}
Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return F::softplus(
      self, F::SoftplusFuncOptions().beta(beta.toDouble()).threshold(threshold.toDouble()));
}
Tensor hardswish(const Tensor& self) { return F::hardswish(self, false); }
const Tensor& hardswish_(const Tensor& self) {
  F::hardswish(self, true);
  return self;
}
Tensor hardsigmoid(const Tensor& self) { return F::hardsigmoid(self, false); }
const Tensor& hardsigmoid_(const Tensor& self) {
  F::hardsigmoid(self, true);
  return self;
}
Tensor glu(const Tensor& self, int64_t dim) { return F::glu(self, F::GLUFuncOptions(dim)); }
Tensor prelu(const Tensor& self, const Tensor& weight) { return F::prelu(self, weight); }
Tensor rrelu(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training) {
  return F::rrelu(self, rrelu_options(lower, upper, training, false));
}
const Tensor& rrelu_(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training) {
  F::rrelu(self, rrelu_options(lower, upper, training, true));
  return self;
}
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return F::threshold(self, F::ThresholdFuncOptions(threshold.toDouble(), value.toDouble()));
}
const Tensor& threshold_(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  F::threshold(self, F::ThresholdFuncOptions(threshold.toDouble(), value.toDouble()).inplace(true));
  return self;
}
Tensor log_sigmoid(const Tensor& self) { return F::logsigmoid(self); }
Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  return F::softshrink(self, F::SoftshrinkFuncOptions(lambd.toDouble()));
}
Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  return F::hardshrink(self, F::HardshrinkFuncOptions(lambd.toDouble()));
}

}  // namespace ember
