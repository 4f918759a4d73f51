// The functional losses, as LibTorch's torch/nn/functional/loss.h:
//
//   namespace F = ember::nn::functional;
//   Tensor loss = F::cross_entropy(logits, labels,
//   F::CrossEntropyFuncOptions().label_smoothing(0.1)); Tensor l1 = F::l1_loss(pred, target,
//   ember::kSum);
//
// Every loss takes `reduction`: kNone returns the per-element (or per-sample) losses, kMean their
// mean and kSum their sum. float16/bfloat16 inputs are computed in float32 and the result
// rounded back, as PyTorch's reduced-precision kernels do. Semantics, shapes and defaults follow
// PyTorch 1.13; a shape or dtype that does not fit throws ember::Error naming the loss.
#pragma once

#include <optional>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"
#include "ember/nn/options/loss.h"

namespace ember::nn::functional {

// ---- Regression ----

/// |input - target|, input and target broadcast together.
EMBER_API Tensor l1_loss(const Tensor& input, const Tensor& target,
                         const L1LossFuncOptions& options = {});
/// (input - target)^2, input and target broadcast together.
EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target,
                          const MSELossFuncOptions& options = {});
/// Huber loss: 0.5 z^2 for |z| < delta, else delta (|z| - 0.5 delta), z = input - target.
EMBER_API Tensor huber_loss(const Tensor& input, const Tensor& target,
                            const HuberLossFuncOptions& options = {});
/// Smooth L1: 0.5 z^2 / beta for |z| < beta, else |z| - 0.5 beta (options.beta()).
EMBER_API Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                                const SmoothL1LossFuncOptions& options = {});
/// As above with `beta` in place of options.beta() (LibTorch's extra argument).
EMBER_API Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                                const SmoothL1LossFuncOptions& options, double beta);
/// KL divergence of input (log-probabilities) from target (probabilities, or log-probabilities
/// with log_target): target * (log(target) - input).
EMBER_API Tensor kl_div(const Tensor& input, const Tensor& target,
                        const KLDivFuncOptions& options = {});
/// Poisson negative log-likelihood of target counts under rate exp(input) (or input).
EMBER_API Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                                  const PoissonNLLLossFuncOptions& options = {});
/// Gaussian negative log-likelihood 0.5 (log(var) + (input - target)^2 / var). var has the
/// input's shape, or the input's shape with the last dim 1 or dropped (one variance per sample).
EMBER_API Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                                   const GaussianNLLLossFuncOptions& options = {});

// ---- Classification ----

/// Negative log-likelihood: input [N, C] / [C] / [N, C, d1, ...] log-probabilities, target int64
/// class indices [N] / [] / [N, d1, ...]. loss = -weight[t] * input[t]; targets equal to
/// ignore_index give 0. kMean divides the sum by the summed weights of the non-ignored targets
/// (nan when all are ignored, as PyTorch).
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target,
                          const NLLLossFuncOptions& options = {});
/// Cross entropy of logits input [N, C] / [C] / [N, C, d1, ...] (log_softmax over the class dim)
/// against int64 class indices (as nll_loss) or, when target has the input's shape and a floating
/// dtype, class probabilities. label_smoothing mixes in the uniform distribution.
EMBER_API Tensor cross_entropy(const Tensor& input, const Tensor& target,
                               const CrossEntropyFuncOptions& options = {});
/// Binary cross entropy of probabilities input (same shape as target):
/// -w (t log(x) + (1 - t) log(1 - x)), each log clamped to >= -100 as PyTorch.
EMBER_API Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                      const BinaryCrossEntropyFuncOptions& options = {});
/// Binary cross entropy of logits, in the overflow-free log-sum-exp form; pos_weight scales the
/// positive term per class (last dim).
EMBER_API Tensor
binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                 const BinaryCrossEntropyWithLogitsFuncOptions& options = {});

// ---- Margin and embedding ----

/// log(1 + exp(-target * input)) with targets in {-1, 1}.
EMBER_API Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                                  const SoftMarginLossFuncOptions& options = {});
/// Per-class logistic loss averaged over the classes (last dim): input [N, C] or [C], target 0/1
/// of the same shape; kNone gives one loss per sample.
EMBER_API Tensor
multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                            const MultilabelSoftMarginLossFuncOptions& options = {});
/// Multi-class hinge loss: input [N, C] or [C], int64 target [N] or [];
/// sum_{j != t} max(0, margin - x[t] + x[j])^p * weight[t] / C.
EMBER_API Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultiMarginLossFuncOptions& options = {});
/// Multi-class multi-label hinge loss: input [N, C] or [C], int64 target of the same shape
/// holding class indices, ended by the first -1.
EMBER_API Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                                        const MultilabelMarginLossFuncOptions& options = {});
/// max(0, -target * (input1 - input2) + margin), target in {-1, 1}.
EMBER_API Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2,
                                     const Tensor& target,
                                     const MarginRankingLossFuncOptions& options = {});
/// input where target == 1, max(0, margin - input) where target == -1.
EMBER_API Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                                      const HingeEmbeddingLossFuncOptions& options = {});
/// 1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1;
/// inputs [N, D] with target [N], or [D] with a 0-dim target.
EMBER_API Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2,
                                       const Tensor& target,
                                       const CosineEmbeddingLossFuncOptions& options = {});
/// max(0, margin + d(a, p) - d(a, n)) with d the p-norm pairwise distance over the last dim.
EMBER_API Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive,
                                     const Tensor& negative,
                                     const TripletMarginLossFuncOptions& options = {});
/// As triplet_margin_loss with a caller-given distance (default: Euclidean pairwise distance).
EMBER_API Tensor triplet_margin_with_distance_loss(
    const Tensor& anchor, const Tensor& positive, const Tensor& negative,
    const TripletMarginWithDistanceLossFuncOptions& options = {});

// ---- Sequence ----

/// Connectionist temporal classification. log_probs [T, N, C] (or [T, C] unbatched), float32 or
/// float64, CPU; targets int32/int64 padded [N, S] or concatenated [sum(target_lengths)];
/// input_lengths and target_lengths integer tensors of N values. kMean divides each loss by
/// its target length (at least 1) and averages over the batch. As PyTorch, the gradient treats
/// log_probs as log_softmax outputs: it is exp(log_probs) - (alignment posteriors), which is
/// exact once chained through log_softmax (the usual case).
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets,
                          const Tensor& input_lengths, const Tensor& target_lengths,
                          const CTCLossFuncOptions& options = {});

}  // namespace ember::nn::functional
