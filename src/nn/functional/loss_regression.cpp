// Regression and distribution losses: l1, mse, huber, smooth_l1, kl_div, poisson_nll,
// gaussian_nll. All are compositions of differentiable ops, so autograd (including double
// backward) needs no formula of its own.
#include <cmath>

#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/nn/functional/loss_common.h"

namespace ember::nn::functional {

using detail::Reduction;

namespace {

// The pointwise losses of input - target (PyTorch broadcasts the two, with a warning when the
// shapes differ). `pointwise` maps the widened difference to the per-element loss.
template <class F>
Tensor difference_loss(const char* op, const Tensor& input, const Tensor& target,
                       Reduction reduction, const F& pointwise) {
  detail::check_floating(op, "input", input);
  detail::check_floating(op, "target", target);
  detail::check_broadcast(op, input, target);
  ScalarType out = promote_types(input.scalar_type(), target.scalar_type());
  Tensor z = detail::widen(input) - detail::widen(target);
  return detail::narrow_to(detail::reduce(pointwise(z), reduction), out);
}

}  // namespace

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  return difference_loss("l1_loss", input, target, detail::reduction_of(options.reduction()),
                         [](const Tensor& z) { return abs(z); });
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  return difference_loss("mse_loss", input, target, detail::reduction_of(options.reduction()),
                         [](const Tensor& z) { return square(z); });
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  const double delta = options.delta();
  EMBER_CHECK_VALUE(delta > 0,
                    "huber_loss: delta must be positive, got {}. Hint: use delta > 0 (or "
                    "smooth_l1_loss with beta = 0 for the L1 loss)",
                    delta);
  return difference_loss("huber_loss", input, target, detail::reduction_of(options.reduction()),
                         [delta](const Tensor& z) {
                           Tensor a = abs(z);
                           return where(a < delta, 0.5 * square(z), delta * (a - 0.5 * delta));
                         });
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options, double beta) {
  EMBER_CHECK_VALUE(beta >= 0,
                    "smooth_l1_loss: beta must be non-negative, got {}. Hint: use beta >= 0 "
                    "(0 gives the L1 loss)",
                    beta);
  return difference_loss("smooth_l1_loss", input, target, detail::reduction_of(options.reduction()),
                         [beta](const Tensor& z) {
                           Tensor a = abs(z);
                           if (beta == 0) return a;
                           return where(a < beta, (0.5 / beta) * square(z), a - 0.5 * beta);
                         });
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options) {
  return smooth_l1_loss(input, target, options, options.beta());
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  detail::check_floating("kl_div", "input", input);
  detail::check_floating("kl_div", "target", target);
  detail::check_broadcast("kl_div", input, target);
  ScalarType out = promote_types(input.scalar_type(), target.scalar_type());
  Tensor x = detail::widen(input), t = detail::widen(target);
  Tensor loss;
  if (options.log_target()) {
    loss = exp(t) * (t - x);
  } else {
    // t * log(t), defined as 0 at t == 0 (PyTorch's xlogy(t, t)); the log reads 1 there so that
    // neither value nor gradient picks up 0 * -inf.
    Tensor t_log_t = t * log(where(t == 0, ones_like(t), t));
    loss = t_log_t - t * x;
  }
  Reduction r = detail::reduction_of(options.reduction());
  if (r == Reduction::kBatchMean) {
    // The sum over everything divided by the batch size (PyTorch: a 0-dim input is its own batch).
    Tensor s = loss.sum();
    return detail::narrow_to(input.dim() == 0 ? s : s / static_cast<double>(input.size(0)), out);
  }
  return detail::narrow_to(detail::reduce(loss, r), out);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& options) {
  detail::check_floating("poisson_nll_loss", "input", input);
  detail::check_floating("poisson_nll_loss", "target", target);
  detail::check_broadcast("poisson_nll_loss", input, target);
  ScalarType out = promote_types(input.scalar_type(), target.scalar_type());
  Tensor x = detail::widen(input), t = detail::widen(target);
  Tensor loss = options.log_input() ? exp(x) - t * x : x - t * log(x + options.eps());
  if (options.full()) {
    // Stirling's log(t!) ~ t log t - t + 0.5 log(2 pi t), only for t > 1. The masked entries
    // read t = 2 so that no log(0) reaches the target's gradient as 0 * -inf.
    Tensor big = t > 1;
    Tensor ts = where(big, t, full_like(t, 2.0));
    Tensor stirling = ts * log(ts) - ts + 0.5 * log((2 * M_PI) * ts);
    loss = loss + where(big, stirling, zeros_like(stirling));
  }
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())), out);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options) {
  const char* op = "gaussian_nll_loss";
  detail::check_floating(op, "input", input);
  detail::check_floating(op, "target", target);
  detail::check_floating(op, "var", var);
  detail::check_broadcast(op, input, target);
  EMBER_CHECK_VALUE(options.eps() >= 0, "{}: eps must be non-negative, got {}", op, options.eps());
  // var is the input's shape (one variance per element), or one variance per sample: the input's
  // shape without its last dim, or with it as 1 (PyTorch's homoscedastic cases).
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    IntArrayRef in = input.sizes();
    IntArrayRef lead = input.dim() > 0 ? in.slice(0, in.size() - 1) : in;
    if (var.sizes() == lead) {
      v = var.unsqueeze(-1);
    } else {
      bool keep_last = var.dim() > 0 && var.size(-1) == 1 &&
                       var.sizes().slice(0, var.sizes().size() - 1) == lead;
      EMBER_CHECK_VALUE(keep_last,
                        "{}: var must have the input's shape, or the input's shape with the last "
                        "dim 1 or dropped: input {}, var {}. Hint: pass var of shape {}",
                        op, detail::describe(input), detail::describe(var), input.sizes());
    }
  }
  EMBER_CHECK_VALUE(!(var < 0).any().item<bool>(),
                    "{}: var has negative entries: var {}. Hint: variances must be >= 0", op,
                    detail::describe(var));
  ScalarType out =
      promote_types(promote_types(input.scalar_type(), target.scalar_type()), v.scalar_type());
  Tensor x = detail::widen(input), t = detail::widen(target);
  v = detail::widen(v);
  // Clamp var to >= eps for the value only: PyTorch clamps in no_grad, so the gradient w.r.t. var
  // is the one at the clamped value, passed through unchanged.
  Tensor vd = v.detach();
  v = v - (vd - vd.clamp_min(options.eps()));
  Tensor loss = 0.5 * (log(v) + square(x - t) / v);
  if (options.full()) loss = loss + 0.5 * std::log(2 * M_PI);
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())), out);
}

}  // namespace ember::nn::functional
