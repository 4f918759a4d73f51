// Margin losses: soft_margin, multilabel_soft_margin, multi_margin, multilabel_margin,
// margin_ranking and hinge_embedding. Compositions of differentiable ops; hinges use relu where
// PyTorch's kernels count the kink as inactive (z > 0) and clamp_min where its composite does.
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

// Output dtype of an input/target pair: the promoted dtype (float16 + float32 -> float32).
ScalarType out_dtype(const Tensor& a, const Tensor& b) {
  return promote_types(a.scalar_type(), b.scalar_type());
}

// Checks shared by the two class-index hinge losses: input [C] or [N, C].
void check_vector_or_matrix(const char* op, const Tensor& input) {
  detail::check_floating(op, "input", input);
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2,
                    "{}: input must be [N, C] or [C], got {}. Hint: flatten the extra dims into "
                    "the batch",
                    op, describe(input));
  EMBER_CHECK_VALUE(input.size(-1) > 0, "{}: input has no classes: input {}", op, describe(input));
}

}  // namespace

Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& options) {
  const char* op = "soft_margin_loss";
  detail::check_floating(op, "input", input);
  detail::check_broadcast(op, input, target);
  // log(1 + exp(-t x)) as a softplus, which does not overflow for large -t x.
  Tensor loss = detail::softplus(-detail::widen(target) * detail::widen(input));
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())),
                           out_dtype(input, target));
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options) {
  const char* op = "multilabel_soft_margin_loss";
  detail::check_floating(op, "input", input);
  EMBER_CHECK_VALUE(input.dim() >= 1, "{}: input must have a class dim (the last), got {}", op,
                    describe(input));
  detail::check_broadcast(op, input, target);
  Tensor x = detail::widen(input), t = detail::widen(target);
  // -(t log sigmoid(x) + (1 - t) log sigmoid(-x)), with -log sigmoid(x) = softplus(-x).
  Tensor loss = t * detail::softplus(-x) + (1 - t) * detail::softplus(x);
  if (options.weight().defined()) {
    detail::check_floating(op, "weight", options.weight());
    detail::check_broadcast(op, input, options.weight());
    loss = loss * detail::widen(options.weight());
  }
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum({class_dim}) / static_cast<double>(input.size(class_dim));
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())),
                           out_dtype(input, target));
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options) {
  const char* op = "multi_margin_loss";
  check_vector_or_matrix(op, input);
  EMBER_CHECK_VALUE(options.p() == 1 || options.p() == 2,
                    "{}: p must be 1 or 2, got {}. Hint: p = 1 is the hinge, p = 2 its square", op,
                    options.p());
  detail::check_class_indices(op, target, input);
  const bool batched = input.dim() == 2;
  const int64_t classes = input.size(-1);
  const int64_t n = batched ? input.size(0) : 1;
  EMBER_CHECK_VALUE(batched ? (target.dim() == 1 && target.size(0) == n) : target.dim() == 0,
                    "{}: target must be {} for input {}, got target {}. Hint: one class index "
                    "per sample",
                    op, batched ? fmt::format("[{}]", n) : std::string("0-dim"), describe(input),
                    describe(target));
  detail::check_class_range(op, target, classes, std::nullopt);
  Tensor x = detail::widen(input).reshape({n, classes});
  Tensor t = target.reshape({n, 1});
  // sum over j != t of max(0, margin - x[t] + x[j])^p, times weight[t], over C.
  Tensor h = relu(options.margin() - x.gather(1, t) + x);
  if (options.p() == 2) h = square(h);
  if (options.weight().defined()) {
    detail::check_class_weight(op, options.weight(), classes);
    Tensor w = detail::widen(options.weight()).to(x.scalar_type());
    h = h * w.index_select(0, t.flatten()).unsqueeze(1);
  }
  Tensor is_target = arange(classes, TensorOptions().dtype(kLong).device(x.device())) == t;
  h = where(is_target, zeros_like(h), h);
  Tensor loss = h.sum({1}) / static_cast<double>(classes);
  if (!batched) loss = loss.squeeze(0);
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())),
                           input.scalar_type());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options) {
  const char* op = "multilabel_margin_loss";
  check_vector_or_matrix(op, input);
  detail::check_class_indices(op, target, input);
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(),
                    "{}: target must have the input's shape (class indices ended by -1): input "
                    "{}, target {}",
                    op, describe(input), describe(target));
  const bool batched = input.dim() == 2;
  const int64_t classes = input.size(-1);
  const int64_t n = batched ? input.size(0) : 1;
  Tensor x = detail::widen(input).reshape({n, classes});
  Tensor t = target.reshape({n, classes});
  // The targets of a row are its entries before the first negative one.
  Tensor valid = (t >= 0).to(kLong).cumprod(1).to(kBool);
  Tensor listed = t.masked_select(valid);
  if (listed.numel() > 0) {
    int64_t top = listed.max().item<int64_t>();
    EMBER_CHECK_INDEX(top < classes,
                      "{}: target class {} is out of range for {} classes: valid classes are 0 "
                      "to {}, and -1 ends a row's list",
                      op, top, classes, classes - 1);
  }
  Tensor safe = where(valid, t, zeros_like(t));
  Tensor is_target =
      zeros({n, classes}, x.options()).scatter_add(1, safe, valid.to(x.scalar_type()));
  Tensor others = (is_target > 0).logical_not();
  // The lists are prefixes, so only their first `longest` columns matter: the pair tensor below
  // is [N, longest, C], not [N, C, C].
  const int64_t longest = n == 0 ? 0 : valid.sum({1}).max().item<int64_t>();
  valid = valid.narrow(1, 0, longest);
  safe = safe.narrow(1, 0, longest);
  // z[n, j, i] = 1 - (x[n, y_j] - x[n, i]) for listed targets y_j and non-target classes i.
  Tensor z = relu(1 - x.gather(1, safe).unsqueeze(2) + x.unsqueeze(1));
  Tensor pair = valid.unsqueeze(2).logical_and(others.unsqueeze(1));
  Tensor loss = where(pair, z, zeros_like(z)).sum({1, 2}) / static_cast<double>(classes);
  if (!batched) loss = loss.squeeze(0);
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())),
                           input.scalar_type());
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  const char* op = "margin_ranking_loss";
  detail::check_floating(op, "input1", input1);
  detail::check_floating(op, "input2", input2);
  EMBER_CHECK_VALUE(input1.dim() == input2.dim() && input1.dim() == target.dim(),
                    "{}: input1, input2 and target must have the same number of dims: input1 {}, "
                    "input2 {}, target {}",
                    op, describe(input1), describe(input2), describe(target));
  detail::check_broadcast(op, input1, input2);
  detail::check_broadcast(op, input1, target);
  Tensor x1 = detail::widen(input1), x2 = detail::widen(input2), t = detail::widen(target);
  Tensor loss = (-t * (x1 - x2) + options.margin()).clamp_min(0);
  ScalarType out = promote_types(out_dtype(input1, input2), target.scalar_type());
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())), out);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options) {
  const char* op = "hinge_embedding_loss";
  detail::check_floating(op, "input", input);
  detail::check_broadcast(op, input, target);
  Tensor x = detail::widen(input);
  // As PyTorch: the margin term wherever target != 1, the input itself wherever target != -1
  // (so a target that is neither gets both).
  Tensor margin_term = (options.margin() - x).clamp_min(0);
  Tensor zero = zeros_like(x);
  Tensor loss = where(target != 1, margin_term, zero) + where(target != -1, x, zero);
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())),
                           input.scalar_type());
}

}  // namespace ember::nn::functional
