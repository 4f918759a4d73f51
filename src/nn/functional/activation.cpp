// The piecewise activations: relu, relu6/hardtanh, leaky_relu, prelu, rrelu, the ELU family (elu,
// selu, celu), hardsigmoid, hardswish, softshrink, hardshrink and threshold. The smooth ones and
// softmax/glu are in activation_smooth.cpp.
//
// Each gradient at a kink is PyTorch's, which the golden tests check at the exact kink points:
//   relu'(0) = 0            hardtanh' = 0 at min_val and max_val   leaky_relu'(0) = slope
//   elu'(0) = alpha         hardsigmoid' = 0 at ±3                 hardswish'(-3) = -0.5, (3) = 1.5
//   softshrink' = hardshrink' = 0 at ±lambda                       threshold' = 0 at threshold
#include <vector>

#include "ember/nn/functional/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"
#include "src/nn/functional/activation_common.h"

namespace ember::nn::functional {

namespace detail {
void check_floating(const Tensor& input, const char* op) {
  EMBER_CHECK(input.defined(), "{}: the input tensor is undefined", op);
  EMBER_CHECK_TYPE(input.is_floating_point(),
                   "{}: expected a floating point input, got {} {}. Hint: convert it with "
                   ".to(ember::kFloat)",
                   op, input.sizes(), input.dtype());
}
}  // namespace detail

using detail::GradFrom;
using detail::unary_with_grad;

namespace {
// Bounds and fill values of the integer-preserving ops: an integer input keeps its dtype (as
// PyTorch), so its double options become integers instead of promoting the result to float.
Scalar scalar_for(const Tensor& x, double v) {
  if (is_floating_point(x.dtype())) return Scalar(v);
  return Scalar(static_cast<int64_t>(v));
}

// The ELU family: scale·x for x > 0, scale·alpha·(exp(input_scale·x) - 1) otherwise.
Tensor elu_family(const char* op, const char* node, const Tensor& x, double alpha, double scale,
                  double input_scale, bool inplace) {
  detail::check_floating(x, op);
  const double neg_coef = alpha * scale;
  auto fwd = [=](const Tensor& in) {
    Tensor xf = detail::upcast(in);
    Tensor neg = xf.clamp_max(0);  // exp of the positive side is never used: keep it finite
    if (input_scale != 1) neg.mul_(input_scale);
    neg.expm1_();
    if (neg_coef != 1) neg.mul_(neg_coef);
    Tensor y = where(xf > 0, scale == 1 ? xf : xf * scale, neg);
    return detail::downcast(y, in.dtype());
  };
  auto pos_grad = [=](const Tensor& grad) { return scale == 1 ? grad : grad * scale; };
  // In place, PyTorch's formula reads the result: result + scale·alpha = scale·alpha·exp(...),
  // and result <= 0 exactly where x <= 0, which holds while scale·alpha >= 0. Otherwise the
  // input is kept.
  if (inplace && neg_coef >= 0) {
    return unary_with_grad(
        op, node, x, true, GradFrom::kResult, fwd, [=](const Tensor& grad, const Tensor& r) {
          return where(r <= 0, grad * (r + neg_coef) * input_scale, pos_grad(grad));
        });
  }
  return unary_with_grad(
      op, node, x, inplace, GradFrom::kInput, fwd, [=](const Tensor& grad, const Tensor& in) {
        Tensor e = input_scale == 1 ? in.clamp_max(0).exp() : (in.clamp_max(0) * input_scale).exp();
        return where(in <= 0, grad * e * (neg_coef * input_scale), pos_grad(grad));
      });
}

// x for x > 0 and slope·x otherwise; gradient 1 for x > 0 and slope otherwise (also at 0).
Tensor leaky(const char* op, const char* node, const Tensor& x, double slope, bool inplace) {
  detail::check_floating(x, op);
  auto fwd = [=](const Tensor& in) { return where(in > 0, in, in * slope); };
  auto bwd = [=](const Tensor& grad, const Tensor& saved) {
    return where(saved > 0, grad, grad * slope);
  };
  // The result is > 0 exactly where x is while slope >= 0, so in place it can stand for x.
  GradFrom from = inplace && slope >= 0 ? GradFrom::kResult : GradFrom::kInput;
  return unary_with_grad(op, node, x, inplace, from, fwd, bwd);
}
}  // namespace

Tensor relu(const Tensor& input, const ReLUFuncOptions& options) {
  return options.inplace() ? ember::relu_(input) : ember::relu(input);
}

Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options) {
  EMBER_CHECK(input.defined(), "hardtanh: the input tensor is undefined");
  const double lo = options.min_val(), hi = options.max_val();
  const bool inplace = options.inplace();
  auto fwd = [&](const Tensor& in) {
    return inplace ? in.clamp_(scalar_for(in, lo), scalar_for(in, hi))
                   : in.clamp(scalar_for(in, lo), scalar_for(in, hi));
  };
  // Not clamp's gradient: PyTorch's hardtanh has 0 at the bounds. The result sits on a bound
  // exactly where the input was on or past it, so the result serves out of place and in place;
  // NaN keeps its gradient, as in PyTorch.
  auto bwd = [=](const Tensor& grad, const Tensor& r) {
    return where((r <= lo) | (r >= hi), 0, grad);
  };
  return unary_with_grad(inplace ? "hardtanh_" : "hardtanh", "HardtanhBackward0", input, inplace,
                         GradFrom::kResult, fwd, bwd);
}

Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options) {
  return hardtanh(input, HardtanhFuncOptions().min_val(0).max_val(6).inplace(options.inplace()));
}

Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options) {
  return options.inplace()
             ? leaky("leaky_relu_", "LeakyReluBackward1", input, options.negative_slope(), true)
             : leaky("leaky_relu", "LeakyReluBackward0", input, options.negative_slope(), false);
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  detail::check_floating(input, "prelu");
  EMBER_CHECK(weight.defined(), "prelu: the weight tensor is undefined");
  EMBER_CHECK(weight.dim() <= 1,
              "prelu: weight must be a scalar or a 1-D tensor, got weight {} ({} dims). Hint: "
              "use one slope per channel, shape [C]",
              weight.sizes(), weight.dim());
  EMBER_CHECK_TYPE(weight.dtype() == input.dtype(),
                   "prelu: weight dtype {} does not match input dtype {}. Hint: convert the "
                   "weight with .to(input.dtype())",
                   weight.dtype(), input.dtype());
  const int64_t n = weight.numel();
  Tensor w;
  if (n == 1) {
    w = weight.reshape({});
  } else {
    EMBER_CHECK(input.dim() > 0,
                "prelu: a 0-dim input takes a single slope, got weight {}. Hint: use a weight "
                "of one element",
                weight.sizes());
    const int64_t channels = input.dim() > 1 ? input.size(1) : 1;
    EMBER_CHECK(n == channels,
                "prelu: weight has {} elements but input {} {} has {} channels (dim 1). Hint: "
                "PReLU's num_parameters must be 1 or the channel count",
                n, input.sizes(), input.dtype(), channels);
    // One slope per channel: shaped [C, 1, ..., 1] to broadcast against dims 1..
    std::vector<int64_t> shape(static_cast<size_t>(input.dim() - 1), 1);
    shape[0] = n;
    w = weight.reshape(shape);
  }
  // Recorded ops give PyTorch's gradients: d(input) = weight where input <= 0 (including 0),
  // d(weight) = sum of input·grad over the elements where input <= 0.
  return where(input > 0, input, w * input);
}

Tensor rrelu(const Tensor& input, const RReLUFuncOptions& options) {
  const double lower = options.lower(), upper = options.upper();
  EMBER_CHECK_VALUE(lower <= upper,
                    "rrelu: the lower bound must not exceed the upper bound, got lower={} "
                    "upper={}",
                    lower, upper);
  detail::check_floating(input, "rrelu");
  if (!options.training()) {
    return leaky_relu(
        input,
        LeakyReLUFuncOptions().negative_slope((lower + upper) / 2).inplace(options.inplace()));
  }
  // The per-element slope: uniform in [lower, upper] where input <= 0, 1 elsewhere. The same
  // tensor is the gradient's factor, as PyTorch's noise buffer.
  Tensor noise = empty_like(input);
  noise.uniform_(lower, upper);
  noise.masked_fill_(input > 0, 1);
  const bool inplace = options.inplace();
  return unary_with_grad(
      inplace ? "rrelu_" : "rrelu", "RreluWithNoiseBackward0", input, inplace, GradFrom::kInput,
      [&](const Tensor& in) { return inplace ? in.mul_(noise) : in * noise; },
      [](const Tensor& grad, const Tensor& slopes) { return grad * slopes; }, noise);
}

Tensor elu(const Tensor& input, const ELUFuncOptions& options) {
  return elu_family(options.inplace() ? "elu_" : "elu", "EluBackward0", input, options.alpha(), 1.0,
                    1.0, options.inplace());
}

Tensor selu(const Tensor& input, const SELUFuncOptions& options) {
  // PyTorch's constants (Klambauer et al., 2017), to double precision.
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return elu_family(options.inplace() ? "selu_" : "selu", "EluBackward0", input, kAlpha, kScale,
                    1.0, options.inplace());
}

Tensor celu(const Tensor& input, const CELUFuncOptions& options) {
  const double alpha = options.alpha();
  EMBER_CHECK_VALUE(alpha != 0,
                    "celu: alpha must not be 0 (the formula divides by it), got alpha={}. Hint: "
                    "use relu for the alpha -> 0 limit",
                    alpha);
  return elu_family(options.inplace() ? "celu_" : "celu", "EluBackward0", input, alpha, 1.0,
                    1.0 / alpha, options.inplace());
}

Tensor hardsigmoid(const Tensor& input, bool inplace) {
  detail::check_floating(input, "hardsigmoid");
  auto fwd = [](const Tensor& in) {
    Tensor y = detail::upcast(in).add(3).clamp_(0, 6).div_(6);
    return detail::downcast(y, in.dtype());
  };
  // 1/6 strictly inside (-3, 3); 0 at ±3 and beyond (and for NaN), as PyTorch.
  auto bwd = [](const Tensor& grad, const Tensor& in) { return where(in.abs() < 3, grad / 6, 0); };
  return unary_with_grad(inplace ? "hardsigmoid_" : "hardsigmoid", "HardsigmoidBackward0", input,
                         inplace, GradFrom::kInput, fwd, bwd);
}

Tensor hardswish(const Tensor& input, bool inplace) {
  detail::check_floating(input, "hardswish");
  auto fwd = [](const Tensor& in) {
    Tensor xf = detail::upcast(in);
    Tensor y = xf.add(3).clamp_(0, 6).mul_(xf).div_(6);
    return detail::downcast(y, in.dtype());
  };
  // PyTorch: 0 below -3, x/3 + 1/2 on [-3, 3] (both ends included), 1 above. (At exactly 3 torch
  // 1.13's vectorised CPU loop gives 1 instead; its scalar loop and CUDA kernel give 1.5.)
  auto bwd = [](const Tensor& grad, const Tensor& in) {
    Tensor slope = where(in <= 3, in / 3 + 0.5, 1);
    return grad * where(in < -3, 0, slope);
  };
  return unary_with_grad(inplace ? "hardswish_" : "hardswish", "HardswishBackward0", input, inplace,
                         GradFrom::kInput, fwd, bwd);
}

Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  detail::check_floating(input, "softshrink");
  const double l = options.lambda();
  EMBER_CHECK_VALUE(l >= 0, "softshrink: lambda must be >= 0, got lambda={}", l);
  // x - clamp(x, -l, l) is x - l above l, x + l below -l and 0 between; clamp's gradient is 1
  // on the closed band, so the gradient is 0 at ±l, as PyTorch's. NaN stays NaN (torch 1.13 gave
  // 0; PyTorch propagates it since pytorch/pytorch#138385).
  return input - input.clamp(-l, l);
}

Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  detail::check_floating(input, "hardshrink");
  // Zero on the closed band [-l, l] (so gradient 0 at ±l); NaN passes through, as PyTorch.
  return where(input.abs() <= options.lambda(), 0, input);
}

Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options) {
  EMBER_CHECK(input.defined(), "threshold: the input tensor is undefined");
  // Integer inputs compare with the threshold converted to their dtype, as PyTorch's kernel does.
  const Scalar th = scalar_for(input, options.threshold());
  const Scalar value = scalar_for(input, options.value());
  // `x <= threshold` (not `!(x > threshold)`): NaN stays NaN and keeps its gradient, as PyTorch.
  if (options.inplace()) return input.masked_fill_(input <= th, value);
  return where(input <= th, value, input);
}

}  // namespace ember::nn::functional
