// Backward formulas of the statistics: var, std, var_mean, std_mean, norm, logsumexp (PyTorch's
// var_backward, std_backward, var_mean_backward, norm_backward, logsumexp_backward).
#include <cmath>
#include <type_traits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "src/autograd/derivatives/reduction.h"

namespace ember::autograd::derivatives {

namespace {
int64_t reduced_count(IntArrayRef sizes, uint64_t mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask >> d & 1) n *= sizes[d];
  return n;
}

// d var / dx = 2 (x - mean) / (N - correction). With N <= correction the forward is inf or nan,
// and so is this (2 / 0 = inf).
Tensor var_backward(const Tensor& grad, const Tensor& self, uint64_t mask, double correction,
                    bool keepdim) {
  const int64_t ndim = self.dim();
  const double dof = static_cast<double>(reduced_count(self.sizes(), mask)) - correction;
  Tensor centered = self - self.mean(dims_of(mask, ndim), /*keepdim=*/true);
  return unsqueeze_reduced(grad, ndim, mask, keepdim) * centered * (2.0 / dof);
}

// std = sqrt(var): d std = d var / (2 std), taken as 0 where std is 0 (as PyTorch).
Tensor std_backward(const Tensor& grad, const Tensor& self, const Tensor& result, uint64_t mask,
                    double correction, bool keepdim) {
  Tensor g = where(result == 0, 0, grad / (result * 2));
  return var_backward(g, self, mask, correction, keepdim);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, uint64_t mask, bool keepdim) {
  return expand_reduced(grad, sizes, mask, keepdim) /
         static_cast<double>(reduced_count(sizes, mask));
}

// The gradients of a two-output node. FnNode picks the single-gradient call when the formula
// accepts a lone Tensor, and ArrayRef<Tensor> converts from one; this type converts from an
// ArrayRef only, so the formula always receives every output's gradient.
struct OutputGrads {
  template <class T, std::enable_if_t<std::is_same_v<T, ArrayRef<Tensor>>, int> = 0>
  OutputGrads(T g) : grads(g) {}  // NOLINT: implicit from the node's gradient list
  ArrayRef<Tensor> grads;
};

Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const Tensor& result, double p,
                     uint64_t mask, bool keepdim) {
  const int64_t ndim = self.dim();
  Tensor g = unsqueeze_reduced(grad, ndim, mask, keepdim);
  Tensor norm = unsqueeze_reduced(result, ndim, mask, keepdim);
  if (p == 0.0) return zeros_like(self);  // counts nonzeros: piecewise constant
  if (p == 1.0) return self.sign() * g;
  if (p == 2.0) return g * where(norm == 0, 0, self / norm);
  if (std::isinf(p)) {
    // The derivative of amax(abs(x)) (amin for -inf), split among ties, NaNs counting as hits.
    Tensor a = self.abs();
    Tensor hit = (a == norm) | a.isnan();
    Tensor count = ndim == 0 ? hit : hit.sum(dims_of(mask, ndim), /*keepdim=*/true);
    return self.sign() * (g / count * hit);
  }
  // d/dx_k (sum |x|^p)^(1/p) = sign(x_k) |x_k|^(p-1) / norm^(p-1).
  if (p < 1.0) {
    Tensor scaled = self.sign() * where(self == 0, 0, self.abs().pow(p - 1));
    return scaled * g * norm.pow(1 - p);
  }
  Tensor scaled = p < 2.0 ? self.sign() * self.abs().pow(p - 1) : self * self.abs().pow(p - 2);
  return scaled * where(norm == 0, 0, g / norm.pow(p - 1));
}
}  // namespace

void var(const Tensor& result, const Tensor& self, uint64_t mask, double correction, bool keepdim) {
  record("VarBackward0", result, edges_of(self),
         [self_ = save(self), mask, correction, keepdim](const Tensor& grad) {
           return var_backward(grad, self_.unpack(), mask, correction, keepdim);
         });
}

void std(const Tensor& result, const Tensor& self, uint64_t mask, double correction, bool keepdim) {
  record("StdBackward0", result, edges_of(self),
         [self_ = save(self), result_ = save_output(result), mask, correction,
          keepdim](const Tensor& grad) {
           return std_backward(grad, self_.unpack(), result_.unpack(), mask, correction, keepdim);
         });
}

void var_mean(const Tensor& var, const Tensor& mean, const Tensor& self, uint64_t mask,
              double correction, bool keepdim) {
  record("VarMeanBackward0", {var, mean}, edges_of(self),
         [self_ = save(self), mask, correction, keepdim](OutputGrads out, NeedsGrad) {
           ArrayRef<Tensor> grads = out.grads;
           Tensor x = self_.unpack();
           Tensor g;
           if (grads[0].defined()) g = var_backward(grads[0], x, mask, correction, keepdim);
           if (grads[1].defined())
             g = add_defined(g, mean_backward(grads[1], x.sizes(), mask, keepdim));
           return g;
         });
}

void std_mean(const Tensor& std, const Tensor& mean, const Tensor& self, uint64_t mask,
              double correction, bool keepdim) {
  record("StdMeanBackward0", {std, mean}, edges_of(self),
         [self_ = save(self), std_ = save_output(std), mask, correction, keepdim](OutputGrads out,
                                                                                  NeedsGrad) {
           ArrayRef<Tensor> grads = out.grads;
           Tensor x = self_.unpack();
           Tensor g;
           if (grads[0].defined())
             g = std_backward(grads[0], x, std_.unpack(), mask, correction, keepdim);
           if (grads[1].defined())
             g = add_defined(g, mean_backward(grads[1], x.sizes(), mask, keepdim));
           return g;
         });
}

void norm(const char* node_name, const Tensor& result, const Tensor& self, double p, uint64_t mask,
          bool keepdim) {
  record(node_name, result, edges_of(self),
         [self_ = save(self), result_ = save_output(result), p, mask, keepdim](const Tensor& grad) {
           return norm_backward(grad, self_.unpack(), result_.unpack(), p, mask, keepdim);
         });
}

void logsumexp(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim) {
  record("LogsumexpBackward0", result, edges_of(self),
         [self_ = save(self), result_ = save_output(result), mask, keepdim](const Tensor& grad) {
           Tensor x = self_.unpack();
           const int64_t ndim = x.dim();
           Tensor r = unsqueeze_reduced(result_.unpack(), ndim, mask, keepdim);
           return unsqueeze_reduced(grad, ndim, mask, keepdim) * (x - r).exp();
         });
}

}  // namespace ember::autograd::derivatives
