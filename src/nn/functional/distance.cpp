// F::cosine_similarity and F::pairwise_distance, composed from norms and elementwise ops.
#include "ember/nn/functional/distance.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional {
namespace {

using layer::describe;

// The broadcast shape of x1 and x2, or an Error naming the op and both shapes.
DimVector broadcast_or_throw(const Tensor& x1, const Tensor& x2, const char* op) {
  const int64_t n = std::max(x1.dim(), x2.dim());
  DimVector out(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t a = i < n - x1.dim() ? 1 : x1.size(i - (n - x1.dim()));
    const int64_t b = i < n - x2.dim() ? 1 : x2.size(i - (n - x2.dim()));
    EMBER_CHECK(a == b || a == 1 || b == 1,
                "{}: x1 {} and x2 {} cannot be broadcast together (dim {}: {} vs {}). Hint: the "
                "inputs must have broadcastable shapes",
                op, describe(x1), describe(x2), i, a, b);
    out[i] = a == 1 ? b : a;
  }
  return out;
}

}  // namespace

namespace detail {

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  const char* op = "cosine_similarity";
  layer::check_defined(x1, op, "x1");
  layer::check_defined(x2, op, "x2");
  const ScalarType common = result_type(x1, x2);
  EMBER_CHECK_TYPE(is_floating_point(common),
                   "{}: expected the common dtype of x1 {} and x2 {} to be floating point, but "
                   "it is {}. Hint: convert an input with .to(ember::kFloat)",
                   op, describe(x1), describe(x2), common);
  const DimVector shape = broadcast_or_throw(x1, x2, op);
  const int64_t n = static_cast<int64_t>(shape.size());
  EMBER_CHECK_INDEX(dim >= -n && dim < n && n > 0,
                    "{}: dim {} is out of range for inputs broadcast to {}: expected a dim in "
                    "[{}, {})",
                    op, dim, IntArrayRef(shape), -n, n);
  const int64_t d = dim < 0 ? dim + n : dim;
  const Tensor a = x1.to(common).expand(shape), b = x2.to(common).expand(shape);
  // Each input is divided by its own norm before the dot product, which keeps the result in
  // [-1, 1] (PyTorch's formulation). The squared norms are clamped to eps² without recording, so
  // the gradient is that of x/‖x‖ with ‖x‖ replaced by the clamped value, exactly as PyTorch's.
  Tensor sa = a.square().sum({d}, true), sb = b.square().sum({d}, true);
  {
    NoGradGuard no_grad;
    sa.clamp_min_(eps * eps);
    sb.clamp_min_(eps * eps);
  }
  Tensor na = sa.sqrt(), nb = sb.sqrt();
  return ((a / na) * (b / nb)).sum({d});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const char* op = "pairwise_distance";
  layer::check_defined(x1, op, "x1");
  layer::check_defined(x2, op, "x2");
  broadcast_or_throw(x1, x2, op);
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  // eps is added to the difference, not the norm: it keeps the gradient of a zero distance
  // finite (PyTorch's definition). Two 0-dim inputs are one-element vectors, as in PyTorch.
  const Tensor diff = x1 - x2 + eps;
  return last < 0 ? diff.norm(p) : diff.norm(p, {last}, keepdim);
}

}  // namespace detail

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& o) {
  return detail::cosine_similarity(x1, x2, o.dim(), o.eps());
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& o) {
  return detail::pairwise_distance(x1, x2, o.p(), o.eps(), o.keepdim());
}

}  // namespace ember::nn::functional
