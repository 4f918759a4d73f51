#include "src/nn/functional/loss_common.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"

namespace ember::nn::functional::detail {

Tensor reduce(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::kNone:
      return loss;
    case Reduction::kMean:
      return loss.mean();
    case Reduction::kSum:
      return loss.sum();
    case Reduction::kBatchMean:
      break;
  }
  EMBER_FAIL("loss reduction: kBatchMean is only defined for kl_div");
}

Tensor widen(const Tensor& t) {
  return t.defined() && is_reduced_float(t.scalar_type()) ? t.to(kFloat) : t;
}

Tensor narrow_to(const Tensor& result, ScalarType dtype) {
  return result.scalar_type() == dtype ? result : result.to(dtype);
}

Tensor softplus(const Tensor& z) {
  Tensor m = z.detach().clamp_min(0);
  return m + log(exp(-m) + exp(z - m));
}

void check_floating(const char* op, const char* what, const Tensor& t) {
  EMBER_CHECK_TYPE(t.defined(), "{}: {} is an undefined tensor. Hint: pass a floating tensor", op,
                   what);
  EMBER_CHECK_TYPE(t.is_floating_point(),
                   "{}: {} must be a floating tensor, got {}. Hint: convert it with .to(kFloat)",
                   op, what, describe(t));
}

void check_class_indices(const char* op, const Tensor& target, const Tensor& input) {
  EMBER_CHECK_TYPE(target.scalar_type() == kLong,
                   "{}: class-index target must be int64, got {} (input {}). Hint: convert it "
                   "with .to(kLong)",
                   op, describe(target), describe(input));
}

void check_class_range(const char* op, const Tensor& target, int64_t num_classes,
                       std::optional<int64_t> ignore_index) {
  if (target.numel() == 0) return;
  Tensor bad = (target < 0).logical_or(target >= num_classes);
  if (ignore_index) bad = bad.logical_and(target != *ignore_index);
  if (!bad.any().item<bool>()) return;
  int64_t value = target.masked_select(bad).select(0, 0).item<int64_t>();
  EMBER_CHECK_INDEX(false,
                    "{}: target class {} is out of range for {} classes: valid classes are 0 to "
                    "{}{}. Hint: check the labels",
                    op, value, num_classes, num_classes - 1,
                    ignore_index ? fmt::format(" (or ignore_index {})", *ignore_index) : "");
}

void check_class_weight(const char* op, const Tensor& weight, int64_t num_classes) {
  EMBER_CHECK_VALUE(weight.dim() == 1 && weight.numel() == num_classes,
                    "{}: weight must have one value per class ([{}]), got {}. Hint: pass a 1-D "
                    "weight of {} values",
                    op, num_classes, describe(weight), num_classes);
  check_floating(op, "weight", weight);
}

void check_broadcast(const char* op, const Tensor& input, const Tensor& target) {
  try {
    broadcast_shapes(input.sizes(), target.sizes());
  } catch (const Error&) {
    EMBER_CHECK_VALUE(false,
                      "{}: input and target shapes do not broadcast: input {}, target {}. Hint: "
                      "give the target the input's shape",
                      op, describe(input), describe(target));
  }
}

void check_same_shape(const char* op, const Tensor& input, const Tensor& target) {
  EMBER_CHECK_VALUE(input.sizes() == target.sizes(),
                    "{}: target must have the input's shape: input {}, target {}. Hint: reshape "
                    "the target to {}",
                    op, describe(input), describe(target), input.sizes());
}

}  // namespace ember::nn::functional::detail
