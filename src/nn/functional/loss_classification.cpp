// Multi-class losses: nll_loss and cross_entropy (class indices, with weight, ignore_index and
// label smoothing, or class probabilities), for inputs [C], [N, C] and [N, C, d1, ...].
// Composed from log_softmax, gather and reductions, so autograd needs no formula of its own.
#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/nn/functional/loss_common.h"

namespace ember::nn::functional {

using detail::describe;
using detail::Reduction;

namespace {

int64_t class_dim_of(const Tensor& input) { return input.dim() == 1 ? 0 : 1; }

void check_class_input(const char* op, const Tensor& input) {
  detail::check_floating(op, "input", input);
  EMBER_CHECK_VALUE(input.dim() >= 1,
                    "{}: input must have a class dim, got {}. Hint: pass [N, C], [C] or "
                    "[N, C, d1, ...]",
                    op, describe(input));
}

// A class-index target has the input's shape without the class dim: [N] for [N, C], [] for [C],
// [N, d1, ...] for [N, C, d1, ...].
void check_index_target(const char* op, const Tensor& input, const Tensor& target) {
  detail::check_class_indices(op, target, input);
  std::vector<int64_t> expected = input.sizes().vec();
  expected.erase(expected.begin() + class_dim_of(input));
  if (target.sizes() == expected) return;
  EMBER_CHECK_VALUE(!(input.dim() == 2 && target.dim() == 1),
                    "{}: target has {} elements but input batch is {}: input {}, target {}. Hint: "
                    "give one class index per row of the input",
                    op, target.size(0), input.size(0), describe(input), describe(target));
  EMBER_CHECK_VALUE(false,
                    "{}: class-index target must have shape {} for input {} (classes along dim "
                    "{}), got target {}. Hint: a target of class probabilities has the input's "
                    "shape and a floating dtype",
                    op, IntArrayRef(expected), describe(input), class_dim_of(input),
                    describe(target));
}

// The weight of dim 1 (or 0) viewed to broadcast against the input: [1, C, 1, ...].
Tensor class_weight_view(const Tensor& weight, const Tensor& input) {
  std::vector<int64_t> shape(input.dim(), 1);
  shape[class_dim_of(input)] = weight.numel();
  return weight.view(shape);
}

// The NLL of class indices on log-probabilities `logp` (already widened and checked).
// Ignored targets read class 0 and are then masked with `where`, not multiplied by 0, so that a
// -inf log-probability there cannot turn into nan.
struct NllParts {
  Tensor valid;   // target != ignore_index
  Tensor safe;    // the target with ignored entries at class 0
  Tensor weight;  // weight[target] (undefined without weight)
};

NllParts nll_parts(const Tensor& target, const Tensor& weight, int64_t ignore_index) {
  NllParts p;
  p.valid = target != ignore_index;
  p.safe = where(p.valid, target, zeros_like(target));
  if (weight.defined()) p.weight = weight.index_select(0, p.safe.flatten()).view(target.sizes());
  return p;
}

// The divisor of kMean: the summed weights of the non-ignored targets (their count without
// weight). All ignored gives 0 and so nan, as PyTorch.
Tensor mean_divisor(const NllParts& p, ScalarType dtype) {
  if (p.weight.defined()) return where(p.valid, p.weight, zeros_like(p.weight)).sum();
  return p.valid.sum().to(dtype);
}

Tensor nll_core(const Tensor& logp, const Tensor& target, const Tensor& weight,
                int64_t ignore_index, Reduction r) {
  const int64_t cd = class_dim_of(logp);
  NllParts p = nll_parts(target, weight, ignore_index);
  Tensor picked = logp.gather(cd, p.safe.unsqueeze(cd)).squeeze(cd);
  Tensor loss = p.weight.defined() ? -picked * p.weight : -picked;
  loss = where(p.valid, loss, zeros_like(loss));
  if (r == Reduction::kMean) return loss.sum() / mean_divisor(p, loss.scalar_type());
  return detail::reduce(loss, r);
}

Tensor validated_weight(const char* op, const Tensor& weight, const Tensor& input) {
  if (!weight.defined()) return weight;
  detail::check_class_weight(op, weight, input.size(class_dim_of(input)));
  return detail::widen(weight).to(detail::widen(input).scalar_type());
}

// Cross entropy against class probabilities of the input's shape (soft labels).
Tensor cross_entropy_probs(const Tensor& input, const Tensor& target, const Tensor& weight,
                           Reduction r, double label_smoothing) {
  const int64_t cd = class_dim_of(input);
  const int64_t classes = input.size(cd);
  Tensor logp = log_softmax(input, cd);
  Tensor t = target;
  if (label_smoothing > 0) t = t * (1 - label_smoothing) + label_smoothing / classes;
  Tensor terms = logp * t;
  if (weight.defined()) terms = terms * class_weight_view(weight, input);
  switch (r) {
    case Reduction::kNone:
      return -terms.sum({cd});
    case Reduction::kSum:
      return -terms.sum();
    default:
      // The mean over the samples (every position but the class dim), not over the weights.
      return -terms.sum() / static_cast<double>(classes == 0 ? 0 : input.numel() / classes);
  }
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  const char* op = "nll_loss";
  check_class_input(op, input);
  check_index_target(op, input, target);
  Tensor weight = validated_weight(op, options.weight(), input);
  detail::check_class_range(op, target, input.size(class_dim_of(input)), options.ignore_index());
  Tensor loss = nll_core(detail::widen(input), target, weight, options.ignore_index(),
                         detail::reduction_of(options.reduction()));
  return detail::narrow_to(loss, input.scalar_type());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options) {
  const char* op = "cross_entropy";
  check_class_input(op, input);
  const double ls = options.label_smoothing();
  EMBER_CHECK_VALUE(ls >= 0 && ls <= 1,
                    "{}: label_smoothing must be in [0, 1], got {}. Hint: 0 disables it", op, ls);
  const Reduction r = detail::reduction_of(options.reduction());
  const int64_t cd = class_dim_of(input);
  const int64_t classes = input.size(cd);
  Tensor weight = validated_weight(op, options.weight(), input);
  Tensor x = detail::widen(input);

  if (target.sizes() == input.sizes()) {
    // Same shape: class probabilities (as PyTorch, which then requires a floating target).
    EMBER_CHECK_TYPE(target.is_floating_point(),
                     "{}: a target of the input's shape holds class probabilities and must be "
                     "floating, got {} (input {}). Hint: class indices have the input's shape "
                     "without dim {}",
                     op, describe(target), describe(input), cd);
    EMBER_CHECK_VALUE(options.ignore_index() < 0,
                      "{}: ignore_index ({}) is not supported with class-probability targets. "
                      "Hint: leave ignore_index at its default (-100)",
                      op, options.ignore_index());
    ScalarType out = promote_types(input.scalar_type(), target.scalar_type());
    Tensor loss = cross_entropy_probs(x, detail::widen(target), weight, r, ls);
    return detail::narrow_to(loss, out);
  }

  check_index_target(op, input, target);
  detail::check_class_range(op, target, classes, options.ignore_index());
  Tensor logp = log_softmax(x, cd);
  Tensor nll = nll_core(logp, target, weight, options.ignore_index(), r);
  if (ls == 0) return detail::narrow_to(nll, input.scalar_type());

  // Label smoothing: (1 - ls) * nll + ls / C * (the NLL of the uniform target), with the same
  // weights, ignore mask and kMean divisor as the NLL part.
  NllParts p = nll_parts(target, weight, options.ignore_index());
  Tensor smooth = -(weight.defined() ? logp * class_weight_view(weight, logp) : logp).sum({cd});
  smooth = where(p.valid, smooth, zeros_like(smooth));
  Tensor reduced = r == Reduction::kMean ? smooth.sum() / mean_divisor(p, smooth.scalar_type())
                                         : detail::reduce(smooth, r);
  Tensor loss = (1 - ls) * nll + (ls / static_cast<double>(classes)) * reduced;
  return detail::narrow_to(loss, input.scalar_type());
}

}  // namespace ember::nn::functional
