// The ATen-level losses, dropout, layers and distances of nn_ops.h: each translates ATen's
// positional arguments (integer reduction codes, optional tensors, ATen's argument order) into
// the nn::functional call that does the work. The activations are in nn_ops_activation.cpp.
#include "ember/ops/nn_ops.h"

#include <algorithm>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "src/core/check.h"
#include "src/nn/functional/embedding_common.h"

namespace ember {
namespace {
namespace F = nn::functional;

// An absent optional and an undefined tensor both mean "no tensor", as in ATen.
Tensor aten_tensor_or_none(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

// Options carrying ATen's integer reduction as the functional form's tag.
template <class Options>
Options aten_reduction(Options o, int64_t reduction, const char* op) {
  switch (reduction) {
    case Reduction::None:
      return o.reduction(ember::kNone);
    case Reduction::Mean:
      return o.reduction(ember::kMean);
    case Reduction::Sum:
      return o.reduction(ember::kSum);
    default:
      break;
  }
  EMBER_CHECK_VALUE(false,
                    "{}: {} is not a valid value for reduction. Hint: use at::Reduction::None "
                    "(0), Mean (1) or Sum (2)",
                    op, reduction);
  return o;
}

Tensor nll_common(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                  int64_t reduction, int64_t ignore_index, const char* op) {
  return F::nll_loss(self, target,
                     aten_reduction(F::NLLLossFuncOptions(), reduction, op)
                         .weight(aten_tensor_or_none(weight))
                         .ignore_index(ignore_index));
}
}  // namespace

// ---- Regression ----

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::mse_loss(self, target, aten_reduction(F::MSELossFuncOptions(), reduction, "mse_loss"));
}
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::l1_loss(self, target, aten_reduction(F::L1LossFuncOptions(), reduction, "l1_loss"));
}
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  return F::smooth_l1_loss(
      self, target,
      aten_reduction(F::SmoothL1LossFuncOptions(), reduction, "smooth_l1_loss").beta(beta));
}
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  return F::huber_loss(
      self, target,
      aten_reduction(F::HuberLossFuncOptions(), reduction, "huber_loss").delta(delta));
}
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  return F::kl_div(
      self, target,
      aten_reduction(F::KLDivFuncOptions(), reduction, "kl_div").log_target(log_target));
}
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, int64_t reduction) {
  return F::poisson_nll_loss(
      input, target,
      aten_reduction(F::PoissonNLLLossFuncOptions(), reduction, "poisson_nll_loss")
          .log_input(log_input)
          .full(full)
          .eps(eps));
}

// ---- Classification ----

// ATen's nll_loss takes [C] or [N, C] and nll_loss2d [N, C, H, W]; nll_loss_nd any rank. The
// functional form takes any rank, so the first two check theirs, with ATen's reasons.
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index) {
  EMBER_CHECK(!self.defined() || self.dim() == 1 || self.dim() == 2,
              "nll_loss: input tensor should be 1D or 2D, but got a {}-D input of shape {}. "
              "Hint: use nll_loss2d or nll_loss_nd for inputs with spatial dims",
              self.dim(), self.sizes());
  return nll_common(self, target, weight, reduction, ignore_index, "nll_loss");
}
Tensor nll_loss2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                  int64_t reduction, int64_t ignore_index) {
  EMBER_CHECK(!self.defined() || self.dim() == 4,
              "nll_loss2d: only batches of spatial inputs supported (4D tensors), but got input "
              "of shape {}. Hint: use nll_loss_nd for other ranks",
              self.sizes());
  return nll_common(self, target, weight, reduction, ignore_index, "nll_loss2d");
}
Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                   int64_t reduction, int64_t ignore_index) {
  return nll_common(self, target, weight, reduction, ignore_index, "nll_loss_nd");
}
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight, int64_t reduction,
                          int64_t ignore_index, double label_smoothing) {
  return F::cross_entropy(
      self, target,
      aten_reduction(F::CrossEntropyFuncOptions(), reduction, "cross_entropy_loss")
          .weight(aten_tensor_or_none(weight))
          .ignore_index(ignore_index)
          .label_smoothing(label_smoothing));
}
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target,
                            const std::optional<Tensor>& weight, int64_t reduction) {
  return F::binary_cross_entropy(
      self, target,
      aten_reduction(F::BinaryCrossEntropyFuncOptions(), reduction, "binary_cross_entropy")
          .weight(aten_tensor_or_none(weight)));
}
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight,
                                        int64_t reduction) {
  return F::binary_cross_entropy_with_logits(
      self, target,
      aten_reduction(F::BinaryCrossEntropyWithLogitsFuncOptions(), reduction,
                     "binary_cross_entropy_with_logits")
          .weight(aten_tensor_or_none(weight))
          .pos_weight(aten_tensor_or_none(pos_weight)));
}
Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p,
                         const Scalar& margin, const std::optional<Tensor>& weight,
                         int64_t reduction) {
  EMBER_CHECK_VALUE(!p.isFloatingPoint() || p.toDouble() == static_cast<double>(p.toLong()),
                    "multi_margin_loss: only p == 1 and p == 2 supported, got p={}", p);
  return F::multi_margin_loss(
      self, target,
      aten_reduction(F::MultiMarginLossFuncOptions(), reduction, "multi_margin_loss")
          .p(p.toLong())
          .margin(margin.toDouble())
          .weight(aten_tensor_or_none(weight)));
}
Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::multilabel_margin_loss(
      self, target,
      aten_reduction(F::MultilabelMarginLossFuncOptions(), reduction, "multilabel_margin_loss"));
}

// ---- Margin and embedding ----

Tensor soft_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::soft_margin_loss(
      self, target, aten_reduction(F::SoftMarginLossFuncOptions(), reduction, "soft_margin_loss"));
}
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin, int64_t reduction) {
  return F::margin_ranking_loss(
      input1, input2, target,
      aten_reduction(F::MarginRankingLossFuncOptions(), reduction, "margin_ranking_loss")
          .margin(margin));
}
Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin,
                            int64_t reduction) {
  return F::hinge_embedding_loss(
      self, target,
      aten_reduction(F::HingeEmbeddingLossFuncOptions(), reduction, "hinge_embedding_loss")
          .margin(margin));
}
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin, int64_t reduction) {
  return F::cosine_embedding_loss(
      input1, input2, target,
      aten_reduction(F::CosineEmbeddingLossFuncOptions(), reduction, "cosine_embedding_loss")
          .margin(margin));
}
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin, double p, double eps, bool swap, int64_t reduction) {
  return F::triplet_margin_loss(
      anchor, positive, negative,
      aten_reduction(F::TripletMarginLossFuncOptions(), reduction, "triplet_margin_loss")
          .margin(margin)
          .p(p)
          .eps(eps)
          .swap(swap));
}
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  const TensorOptions lengths = TensorOptions().dtype(kLong);
  return ctc_loss(log_probs, targets, tensor(input_lengths.vec(), lengths),
                  tensor(target_lengths.vec(), lengths), blank, reduction, zero_infinity);
}
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction,
                bool zero_infinity) {
  return F::ctc_loss(log_probs, targets, input_lengths, target_lengths,
                     aten_reduction(F::CTCLossFuncOptions(), reduction, "ctc_loss")
                         .blank(blank)
                         .zero_infinity(zero_infinity));
}

// ---- Dropout ----

Tensor dropout(const Tensor& input, double p, bool train) {
  return F::detail::dropout(input, p, train, false);
}
const Tensor& dropout_(const Tensor& self, double p, bool train) {
  F::detail::dropout(self, p, train, true);
  return self;
}
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return F::detail::feature_dropout(input, p, train, false);
}
const Tensor& feature_dropout_(const Tensor& self, double p, bool train) {
  F::detail::feature_dropout(self, p, train, true);
  return self;
}
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return F::detail::alpha_dropout(input, p, train, false);
}
const Tensor& alpha_dropout_(const Tensor& self, double p, bool train) {
  F::detail::alpha_dropout(self, p, train, true);
  return self;
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return F::detail::feature_alpha_dropout(input, p, train, false);
}
const Tensor& feature_alpha_dropout_(const Tensor& self, double p, bool train) {
  F::detail::feature_alpha_dropout(self, p, train, true);
  return self;
}

// ---- Layers ----

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps, bool /*cudnn_enable*/) {
  return F::detail::layer_norm(input, normalized_shape, aten_tensor_or_none(weight),
                               aten_tensor_or_none(bias), eps);
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq, bool sparse) {
  const std::optional<int64_t> padding =
      padding_idx < 0 ? std::nullopt : std::optional<int64_t>(padding_idx);
  return F::detail::embedding(indices, weight, padding, std::nullopt, 2.0, scale_grad_by_freq,
                              sparse);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& per_sample_weights,
    bool include_last_offset) {
  return embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                       per_sample_weights, include_last_offset, std::nullopt);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& per_sample_weights,
    bool include_last_offset, std::optional<int64_t> padding_idx) {
  EMBER_CHECK_VALUE(mode >= 0 && mode <= 2,
                    "embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), but got {}", mode);
  const nn::EmbeddingBagMode bag_mode = mode == 0   ? nn::EmbeddingBagMode(ember::kSum)
                                        : mode == 1 ? nn::EmbeddingBagMode(ember::kMean)
                                                    : nn::EmbeddingBagMode(ember::kMax);
  // A 2-D input holds one bag per row and takes no offsets; ATen passes an empty tensor there.
  const Tensor offs =
      indices.dim() == 2 && offsets.defined() && offsets.numel() == 0 ? Tensor() : offsets;
  // The functional form computes the bookkeeping from the bags it has already laid out.
  F::emb::BagOutputs r = F::emb::embedding_bag(
      indices, weight, offs, std::nullopt, 2.0, scale_grad_by_freq, bag_mode, sparse,
      aten_tensor_or_none(per_sample_weights), include_last_offset, padding_idx,
      /*bookkeeping=*/true);
  return {r.output, r.offset2bag, r.bag_size, r.max_indices};
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return F::linear(input, weight, aten_tensor_or_none(bias));
}
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias) {
  return F::bilinear(input1, input2, weight, aten_tensor_or_none(bias));
}

// ---- Distances ----

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  return F::detail::pairwise_distance(x1, x2, p, eps, keepdim);
}
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  return F::detail::cosine_similarity(x1, x2, dim, eps);
}

}  // namespace ember
