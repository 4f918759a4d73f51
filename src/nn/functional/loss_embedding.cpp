// Embedding losses: cosine_embedding, triplet_margin and triplet_margin_with_distance.
#include <algorithm>

#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/nn/functional/loss_common.h"

namespace ember::nn::functional {

using detail::describe;

namespace {

// PyTorch's pairwise_distance: the p-norm of (a - b + eps) over the last dim of the broadcast.
Tensor pairwise_p_distance(const Tensor& a, const Tensor& b, double p, double eps) {
  int64_t last = std::max(a.dim(), b.dim()) - 1;
  return norm(a - b + eps, p, {last});
}

void check_triplet_dims(const char* op, const Tensor& anchor, const Tensor& positive,
                        const Tensor& negative) {
  EMBER_CHECK_VALUE(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
                    "{}: anchor, positive and negative must have the same number of dims: "
                    "anchor {}, positive {}, negative {}",
                    op, describe(anchor), describe(positive), describe(negative));
}

// max(0, margin + d(a, p) - d(a, n)), with d(a, n) replaced by min(d(a, n), d(p, n)) on swap.
template <class Distance>
Tensor triplet(const Tensor& a, const Tensor& p, const Tensor& n, double margin, bool swap,
               const Distance& distance) {
  Tensor d_pos = distance(a, p);
  Tensor d_neg = distance(a, n);
  if (swap) d_neg = minimum(d_neg, distance(p, n));
  return (margin + d_pos - d_neg).clamp_min(0);
}

}  // namespace

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  const char* op = "cosine_embedding_loss";
  detail::check_floating(op, "input1", input1);
  detail::check_floating(op, "input2", input2);
  EMBER_CHECK_VALUE(target.dim() <= 1,
                    "{}: target must be [N] (or 0-dim for one pair), got {}. Hint: one +1/-1 per "
                    "pair",
                    op, describe(target));
  const int64_t d = target.dim();  // the feature dim: 1 for [N, D] inputs, 0 for [D]
  EMBER_CHECK_VALUE(input1.dim() == d + 1 && input2.dim() == d + 1,
                    "{}: a {} target needs {} inputs, got input1 {}, input2 {}", op,
                    d == 1 ? "[N]" : "0-dim", d == 1 ? "[N, D]" : "[D]", describe(input1),
                    describe(input2));
  detail::check_broadcast(op, input1, input2);
  Tensor x1 = detail::widen(input1), x2 = detail::widen(input2);
  // PyTorch adds 1e-12 to each squared magnitude, so zero vectors give cos = 0, not nan.
  constexpr double kEps = 1e-12;
  Tensor dot = (x1 * x2).sum({d});
  Tensor denom = sqrt(((x1 * x1).sum({d}) + kEps) * ((x2 * x2).sum({d}) + kEps));
  Tensor cos = dot / denom;
  Tensor zero = zeros_like(cos);
  Tensor loss = where(target == 1, 1 - cos, zero) +
                where(target == -1, (cos - options.margin()).clamp_min(0), zero);
  ScalarType out = promote_types(input1.scalar_type(), input2.scalar_type());
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())), out);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  const char* op = "triplet_margin_loss";
  detail::check_floating(op, "anchor", anchor);
  detail::check_floating(op, "positive", positive);
  detail::check_floating(op, "negative", negative);
  check_triplet_dims(op, anchor, positive, negative);
  EMBER_CHECK_VALUE(anchor.dim() >= 1, "{}: inputs must be [N, D] or [D], got anchor {}", op,
                    describe(anchor));
  const double p = options.p(), eps = options.eps();
  Tensor loss = triplet(
      detail::widen(anchor), detail::widen(positive), detail::widen(negative), options.margin(),
      options.swap(),
      [p, eps](const Tensor& a, const Tensor& b) { return pairwise_p_distance(a, b, p, eps); });
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())),
                           anchor.scalar_type());
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive,
                                         const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options) {
  const char* op = "triplet_margin_with_distance_loss";
  check_triplet_dims(op, anchor, positive, negative);
  EMBER_CHECK_VALUE(options.margin() > 0,
                    "{}: margin must be greater than 0, got {}. Hint: use a positive margin", op,
                    options.margin());
  Tensor loss;
  if (options.distance_function()) {
    loss = triplet(anchor, positive, negative, options.margin(), options.swap(),
                   *options.distance_function());
  } else {
    detail::check_floating(op, "anchor", anchor);
    EMBER_CHECK_VALUE(anchor.dim() >= 1, "{}: inputs must be [N, D] or [D], got anchor {}", op,
                      describe(anchor));
    loss = triplet(detail::widen(anchor), detail::widen(positive), detail::widen(negative),
                   options.margin(), options.swap(), [](const Tensor& a, const Tensor& b) {
                     return pairwise_p_distance(a, b, 2.0, 1e-6);
                   });
    loss = detail::narrow_to(loss, anchor.scalar_type());
  }
  return detail::reduce(loss, detail::reduction_of(options.reduction()));
}

}  // namespace ember::nn::functional
