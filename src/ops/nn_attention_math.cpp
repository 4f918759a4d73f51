// The math path of scaled_dot_product_attention: recorded ops, so autograd differentiates it
// (to any order) and every device runs it. It stores the [L, S] weights; the fused path does not.
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/ops/nn_attention_impl.h"

namespace ember::detail {

Tensor additive_mask(const Tensor& masked, ScalarType dtype) {
  return zeros(masked.sizes(), masked.options().dtype(dtype))
      .masked_fill(masked, -std::numeric_limits<double>::infinity());
}

Tensor repeat_kv(const Tensor& t, int64_t repeat) {
  if (repeat == 1) return t;
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  sizes.insert(sizes.end() - 2, repeat);  // [..., Hk, repeat, S, D]
  return t.unsqueeze(-3).expand(sizes).flatten(-4, -3);
}

Tensor fold_kv(const Tensor& grad, int64_t repeat) {
  if (repeat == 1) return grad;
  const int64_t heads = grad.size(-3);
  return grad.unflatten(-3, {heads / repeat, repeat}).sum({-3});
}

Tensor sdpa_weights(const SdpaArgs& a, const Tensor& k_full) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor scores = matmul(a.q * a.scale, k_full.transpose(-2, -1));
  const int64_t L = scores.size(-2), S = scores.size(-1);
  if (a.causal) {
    const Tensor keep = ones({L, S}, scores.options().dtype(kBool)).tril();
    scores = scores.masked_fill(keep.logical_not(), -inf);
  }
  if (!a.mask.defined()) return softmax(scores, -1);
  if (a.mask.scalar_type() == kBool)
    scores = scores.masked_fill(a.mask.logical_not(), -inf);
  else
    scores = scores + a.mask.to(scores.scalar_type());
  // A row no key takes part in is all -inf: softmax would give NaN (and NaN gradients); it gets
  // uniform weights, zeroed after, so its output and gradients are 0.
  const Tensor dead = scores.amax({-1}, true).eq(-inf);
  return softmax(scores.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0);
}

Tensor sdpa_math(const SdpaArgs& a, double dropout_p, Tensor* weights) {
  const ScalarType dtype = a.q.scalar_type();
  if ((dtype == kHalf || dtype == kBFloat16) && a.q.device().is_cpu()) {
    // 16-bit on the CPU computes in float and rounds once, as the fused kernel does.
    SdpaArgs wide = a;
    wide.q = a.q.to(kFloat);
    wide.k = a.k.to(kFloat);
    wide.v = a.v.to(kFloat);
    if (a.mask.defined() && a.mask.scalar_type() != kBool) wide.mask = a.mask.to(kFloat);
    Tensor out = sdpa_math(wide, dropout_p, weights).to(dtype);
    if (weights) *weights = weights->to(dtype);
    return out;
  }
  Tensor w = sdpa_weights(a, repeat_kv(a.k, a.kv_repeat));
  if (dropout_p > 0) w = dropout(w, dropout_p, /*train=*/true);
  if (weights) *weights = w;
  return matmul(w, repeat_kv(a.v, a.kv_repeat));
}

}  // namespace ember::detail
