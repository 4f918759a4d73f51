#include "ember/nn/utils/clip_grad.h"

#include <cmath>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"

namespace ember::nn::utils {

namespace {
// The norm of one gradient. Python's max() has no identity for an empty tensor; a zero-size
// gradient contributes nothing, so its inf-norm is taken as 0.
Tensor clip_grad_one_norm(const Tensor& grad, double norm_type) {
  if (grad.numel() == 0 && norm_type == std::numeric_limits<double>::infinity()) {
    return zeros({}, grad.options());
  }
  return linalg::vector_norm(grad, norm_type);
}
}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return 0.0;
  NoGradGuard no_grad;
  // One norm per grad on its own device, gathered on the first grad's device in the promoted
  // dtype (Python's torch.stack promotes), then one norm of those: no per-element temporaries
  // beyond each grad's own reduction.
  const Device device = grads[0].device();
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads) {
    EMBER_CHECK_TYPE(g.is_floating_point(),
                     "clip_grad_norm_: gradients must be floating point, got {}", g.dtype());
    norms.push_back(clip_grad_one_norm(g, norm_type).to(device));
  }
  Tensor total;
  if (norms.size() == 1) {
    total = norms[0];
  } else {
    ScalarType dtype = norms[0].scalar_type();
    for (const Tensor& n : norms) dtype = promote_types(dtype, n.scalar_type());
    for (Tensor& n : norms) n = n.to(dtype);
    total = linalg::vector_norm(stack(norms), norm_type);
  }
  const double total_norm = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_norm),
              "clip_grad_norm_: The total norm of order {} for gradients from `parameters` is "
              "non-finite, so it cannot be clipped. To disable this error and scale the "
              "gradients by the non-finite norm anyway, set `error_if_nonfinite=false`",
              norm_type);
  // Python's max_norm / (total + 1e-6) is reciprocal(total + 1e-6) * max_norm (Tensor's
  // __rtruediv__), kept so the coefficient rounds the same.
  const Tensor coef = clamp(mul(reciprocal(add(total, 1e-6)), max_norm), std::nullopt, 1.0);
  for (const Tensor& g : grads) g.mul_(coef.to(g.device()));
  return total_norm;
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(Tensor parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{std::move(parameter)}, max_norm, norm_type,
                         error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) p.grad().clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(Tensor parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{std::move(parameter)}, clip_value);
}

}  // namespace ember::nn::utils
