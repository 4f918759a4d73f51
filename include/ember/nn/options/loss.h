// Options of the losses, as LibTorch's torch/nn/options/loss.h: one struct per loss module
// (`nn::CrossEntropyLossOptions().ignore_index(1).label_smoothing(0.1)`) and, in
// nn::functional, the alias the functional form takes (`F::CrossEntropyFuncOptions`).
// `reduction` holds one of the tags of ember/nn/enum.h: ember::kNone, ember::kMean, ember::kSum
// (and ember::kBatchMean for KL divergence). Losses whose only option is the reduction can be
// built from the tag alone: `F::l1_loss(x, y, ember::kSum)`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <variant>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

// Constructors from each reduction tag, as LibTorch's TORCH_OPTIONS_CTOR_VARIANT_ARG3/4, so a
// tag converts implicitly to the options of a loss that has no other required argument.
#define EMBER_LOSS_REDUCTION_CTOR(Options, Tag) \
  Options(enumtype::Tag) : reduction_(ember::Tag) {}  // NOLINT: implicit, as LibTorch
#define EMBER_LOSS_REDUCTION_CTORS(Options) \
  Options() {}                              \
  EMBER_LOSS_REDUCTION_CTOR(Options, kNone) \
  EMBER_LOSS_REDUCTION_CTOR(Options, kMean) \
  EMBER_LOSS_REDUCTION_CTOR(Options, kSum)

namespace ember::nn {

/// L1Loss / F::l1_loss: mean absolute error.
struct EMBER_API L1LossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_LOSS_REDUCTION_CTORS(L1LossOptions)
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// KLDivLoss / F::kl_div. kBatchMean divides the sum by the batch size (the mathematically
/// correct KL divergence); kMean divides by the number of elements.
struct EMBER_API KLDivLossOptions {
  using reduction_t =
      std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  EMBER_LOSS_REDUCTION_CTORS(KLDivLossOptions)
  EMBER_LOSS_REDUCTION_CTOR(KLDivLossOptions, kBatchMean)
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  /// Whether the target is given as log-probabilities.
  EMBER_ARG(bool, log_target) = false;
};

/// MSELoss / F::mse_loss: mean squared error.
struct EMBER_API MSELossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_LOSS_REDUCTION_CTORS(MSELossOptions)
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// BCELoss / F::binary_cross_entropy.
struct EMBER_API BCELossOptions {
  using reduction_t = loss_reduction_t;
  /// Rescales each element's loss; broadcast to the target's shape.
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// HingeEmbeddingLoss / F::hinge_embedding_loss.
struct EMBER_API HingeEmbeddingLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// MultiMarginLoss / F::multi_margin_loss: multi-class hinge loss.
struct EMBER_API MultiMarginLossOptions {
  using reduction_t = loss_reduction_t;
  /// 1 or 2.
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  /// One weight per class (shape [C]), applied by the target class.
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// CosineEmbeddingLoss / F::cosine_embedding_loss.
struct EMBER_API CosineEmbeddingLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// MultiLabelMarginLoss / F::multilabel_margin_loss.
struct EMBER_API MultiLabelMarginLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_LOSS_REDUCTION_CTORS(MultiLabelMarginLossOptions)
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// SoftMarginLoss / F::soft_margin_loss: two-class logistic loss.
struct EMBER_API SoftMarginLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_LOSS_REDUCTION_CTORS(SoftMarginLossOptions)
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// MultiLabelSoftMarginLoss / F::multilabel_soft_margin_loss.
struct EMBER_API MultiLabelSoftMarginLossOptions {
  using reduction_t = loss_reduction_t;
  /// One weight per class, broadcast against the input.
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// TripletMarginLoss / F::triplet_margin_loss.
struct EMBER_API TripletMarginLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_ARG(double, margin) = 1.0;
  /// The norm degree of the pairwise distance.
  EMBER_ARG(double, p) = 2.0;
  /// Added to the difference before the norm, to keep it away from zero.
  EMBER_ARG(double, eps) = 1e-6;
  /// Use the smaller of d(anchor, negative) and d(positive, negative) as the negative distance.
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// TripletMarginWithDistanceLoss / F::triplet_margin_with_distance_loss.
struct EMBER_API TripletMarginWithDistanceLossOptions {
  using reduction_t = loss_reduction_t;
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  /// Distance of two [N, D] batches, giving [N]; none means the Euclidean pairwise distance.
  EMBER_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// CTCLoss / F::ctc_loss: connectionist temporal classification.
struct EMBER_API CTCLossOptions {
  using reduction_t = loss_reduction_t;
  /// The blank label's index.
  EMBER_ARG(int64_t, blank) = 0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  /// Replace infinite losses (impossible alignments) and their gradients by zero.
  EMBER_ARG(bool, zero_infinity) = false;
};

/// SmoothL1Loss / F::smooth_l1_loss: quadratic below beta, linear above.
struct EMBER_API SmoothL1LossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_LOSS_REDUCTION_CTORS(SmoothL1LossOptions)
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  /// Where the loss turns from quadratic to linear; must be >= 0 (0 is the L1 loss).
  EMBER_ARG(double, beta) = 1.0;
};

/// HuberLoss / F::huber_loss: quadratic below delta, linear (slope delta) above.
struct EMBER_API HuberLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_LOSS_REDUCTION_CTORS(HuberLossOptions)
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  /// Must be > 0.
  EMBER_ARG(double, delta) = 1.0;
};

/// PoissonNLLLoss / F::poisson_nll_loss.
struct EMBER_API PoissonNLLLossOptions {
  using reduction_t = loss_reduction_t;
  /// true: the input is log(rate), loss exp(input) - target * input; false: the input is the
  /// rate, loss input - target * log(input + eps).
  EMBER_ARG(bool, log_input) = true;
  /// Add Stirling's approximation of log(target!) (for targets > 1).
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// GaussianNLLLoss / F::gaussian_nll_loss (LibTorch has no such options; these follow Python's
/// torch.nn.GaussianNLLLoss).
struct EMBER_API GaussianNLLLossOptions {
  using reduction_t = loss_reduction_t;
  /// Add the constant 0.5 * log(2 pi).
  EMBER_ARG(bool, full) = false;
  /// The variance is clamped to at least eps (the gradient still flows as if unclamped).
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// MarginRankingLoss / F::margin_ranking_loss.
struct EMBER_API MarginRankingLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// NLLLoss / F::nll_loss: negative log-likelihood of class indices.
struct EMBER_API NLLLossOptions {
  using reduction_t = loss_reduction_t;
  /// One weight per class (shape [C]); kMean then divides by the summed weights of the targets.
  EMBER_ARG(Tensor, weight) = {};
  /// Targets equal to this contribute nothing (and no weight to kMean's divisor).
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// CrossEntropyLoss / F::cross_entropy: log_softmax over the class dim, then the NLL of class
/// indices or the cross entropy of class probabilities.
struct EMBER_API CrossEntropyLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  /// In [0, 1]: mixes the target with the uniform distribution over the C classes.
  EMBER_ARG(double, label_smoothing) = 0.0;
};

/// BCEWithLogitsLoss / F::binary_cross_entropy_with_logits: sigmoid and BCE in one stable form.
struct EMBER_API BCEWithLogitsLossOptions {
  using reduction_t = loss_reduction_t;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  /// Weight of the positive term, one per class (broadcast along the last dim).
  EMBER_ARG(Tensor, pos_weight) = {};
};

namespace functional {
/// Options of F::l1_loss.
using L1LossFuncOptions = L1LossOptions;
/// Options of F::kl_div.
using KLDivFuncOptions = KLDivLossOptions;
/// Options of F::mse_loss.
using MSELossFuncOptions = MSELossOptions;
/// Options of F::binary_cross_entropy.
using BinaryCrossEntropyFuncOptions = BCELossOptions;
/// Options of F::hinge_embedding_loss.
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
/// Options of F::multi_margin_loss.
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
/// Options of F::cosine_embedding_loss.
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
/// Options of F::multilabel_margin_loss.
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
/// Options of F::soft_margin_loss.
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
/// Options of F::multilabel_soft_margin_loss.
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
/// Options of F::triplet_margin_loss.
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
/// Options of F::triplet_margin_with_distance_loss.
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
/// Options of F::ctc_loss.
using CTCLossFuncOptions = CTCLossOptions;
/// Options of F::smooth_l1_loss.
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
/// Options of F::huber_loss.
using HuberLossFuncOptions = HuberLossOptions;
/// Options of F::poisson_nll_loss.
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
/// Options of F::gaussian_nll_loss.
using GaussianNLLLossFuncOptions = GaussianNLLLossOptions;
/// Options of F::margin_ranking_loss.
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
/// Options of F::nll_loss.
using NLLLossFuncOptions = NLLLossOptions;
/// Options of F::cross_entropy.
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
/// Options of F::binary_cross_entropy_with_logits.
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
}  // namespace functional

}  // namespace ember::nn

#undef EMBER_LOSS_REDUCTION_CTORS
#undef EMBER_LOSS_REDUCTION_CTOR
