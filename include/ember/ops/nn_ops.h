// LibTorch's ATen-level neural-network functions: torch::mse_loss, at::layer_norm,
// torch::embedding, torch::dropout, ... with ATen's positional signatures and defaults, so
//   Tensor l = torch::mse_loss(pred, target, at::Reduction::Sum);
//   Tensor y = torch::layer_norm(x, {512}, gamma, beta, 1e-5);
//   Tensor e = torch::embedding(table, ids);            // ATen's order: weight first
// compile and mean what they mean in LibTorch. Each is a thin wrapper over the nn::functional
// form (ember/nn/functional.h), which does the work and the checks; errors name the functional op
// (mse_loss, layer_norm, ...). The elementwise activations LibTorch also has as functions
// (relu, gelu, silu, mish, sigmoid, tanh) and softmax/log_softmax are in elementwise.h and
// reduction.h; this header adds the others.
//
// `reduction` is ATen's integer code (at::Reduction::None, Mean, Sum); an optional tensor
// argument that is nullopt or an undefined tensor is absent. In-place forms (relu6_, dropout_, ...)
// write into `self` and return it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

namespace Reduction {
/// ATen's reduction codes (at::Reduction::Mean): None keeps one loss per element (or sample),
/// Mean averages them, Sum adds them up.
enum Reduction { None = 0, Mean = 1, Sum = 2, END = 3 };
}  // namespace Reduction

// ---- Regression losses (input and target broadcast together) ----

/// (self - target)².
EMBER_API Tensor mse_loss(const Tensor& self, const Tensor& target,
                          int64_t reduction = Reduction::Mean);
/// |self - target|.
EMBER_API Tensor l1_loss(const Tensor& self, const Tensor& target,
                         int64_t reduction = Reduction::Mean);
/// 0.5·z²/beta for |z| < beta, else |z| - 0.5·beta (z = self - target).
EMBER_API Tensor smooth_l1_loss(const Tensor& self, const Tensor& target,
                                int64_t reduction = Reduction::Mean, double beta = 1.0);
/// 0.5·z² for |z| < delta, else delta·(|z| - 0.5·delta).
EMBER_API Tensor huber_loss(const Tensor& self, const Tensor& target,
                            int64_t reduction = Reduction::Mean, double delta = 1.0);
/// target·(log(target) - self) of log-probabilities self; Mean averages over all elements (ATen
/// has no batch mean: divide a Sum by the batch size).
EMBER_API Tensor kl_div(const Tensor& self, const Tensor& target,
                        int64_t reduction = Reduction::Mean, bool log_target = false);
/// Poisson NLL of target counts; ATen gives these arguments no defaults.
EMBER_API Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input,
                                  bool full, double eps, int64_t reduction);

// ---- Classification losses ----

/// NLL of log-probabilities self [N, C] or [C] at int64 class indices target [N] or [].
EMBER_API Tensor nll_loss(const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight = {},
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
/// nll_loss of inputs [N, C, H, W] with targets [N, H, W].
EMBER_API Tensor nll_loss2d(const Tensor& self, const Tensor& target,
                            const std::optional<Tensor>& weight = {},
                            int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
/// nll_loss of any rank: [C], [N, C] or [N, C, d1, ...] with targets [], [N] or [N, d1, ...].
EMBER_API Tensor nll_loss_nd(const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight = {},
                             int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
/// log_softmax over dim 1 (dim 0 for [C]) and nll_loss, or class probabilities as target.
EMBER_API Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                                    const std::optional<Tensor>& weight = {},
                                    int64_t reduction = Reduction::Mean,
                                    int64_t ignore_index = -100, double label_smoothing = 0.0);
/// -w·(t·log(x) + (1 - t)·log(1 - x)) of probabilities self.
EMBER_API Tensor binary_cross_entropy(const Tensor& self, const Tensor& target,
                                      const std::optional<Tensor>& weight = {},
                                      int64_t reduction = Reduction::Mean);
/// binary_cross_entropy of sigmoid(self), computed stably; pos_weight per class (last dim).
EMBER_API Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                                  const std::optional<Tensor>& weight = {},
                                                  const std::optional<Tensor>& pos_weight = {},
                                                  int64_t reduction = Reduction::Mean);
/// Multi-class hinge loss; p is 1 or 2.
EMBER_API Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p = 1,
                                   const Scalar& margin = 1,
                                   const std::optional<Tensor>& weight = {},
                                   int64_t reduction = Reduction::Mean);
/// Multi-label hinge loss; target holds class indices ended by the first -1.
EMBER_API Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target,
                                        int64_t reduction = Reduction::Mean);

// ---- Margin and embedding losses ----

/// log(1 + exp(-target·self)), targets in {-1, 1}.
EMBER_API Tensor soft_margin_loss(const Tensor& self, const Tensor& target,
                                  int64_t reduction = Reduction::Mean);
/// max(0, -target·(input1 - input2) + margin).
EMBER_API Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2,
                                     const Tensor& target, double margin = 0.0,
                                     int64_t reduction = Reduction::Mean);
/// self where target is 1, max(0, margin - self) where it is -1.
EMBER_API Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin = 1.0,
                                      int64_t reduction = Reduction::Mean);
/// 1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1.
EMBER_API Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2,
                                       const Tensor& target, double margin = 0.0,
                                       int64_t reduction = Reduction::Mean);
/// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm pairwise distance.
EMBER_API Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive,
                                     const Tensor& negative, double margin = 1.0, double p = 2,
                                     double eps = 1e-06, bool swap = false,
                                     int64_t reduction = Reduction::Mean);
/// Connectionist temporal classification (log_probs [T, N, C]); lengths as lists or tensors.
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                          IntArrayRef target_lengths, int64_t blank = 0,
                          int64_t reduction = Reduction::Mean, bool zero_infinity = false);
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets,
                          const Tensor& input_lengths, const Tensor& target_lengths,
                          int64_t blank = 0, int64_t reduction = Reduction::Mean,
                          bool zero_infinity = false);

// ---- Activations not generated from the elementwise table ----

/// self clamped to [min_val, max_val].
EMBER_API Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1,
                          const Scalar& max_val = 1);
EMBER_API const Tensor& hardtanh_(const Tensor& self, const Scalar& min_val = -1,
                                  const Scalar& max_val = 1);
/// hardtanh(self, 0, 6).
EMBER_API Tensor relu6(const Tensor& self);
EMBER_API const Tensor& relu6_(const Tensor& self);
EMBER_API Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01);
EMBER_API const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope = 0.01);
/// scale·x for x > 0, scale·alpha·(exp(input_scale·x) - 1) otherwise.
EMBER_API Tensor elu(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1,
                     const Scalar& input_scale = 1);
EMBER_API const Tensor& elu_(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1,
                             const Scalar& input_scale = 1);
EMBER_API Tensor selu(const Tensor& self);
EMBER_API const Tensor& selu_(const Tensor& self);
EMBER_API Tensor celu(const Tensor& self, const Scalar& alpha = 1.0);
EMBER_API const Tensor& celu_(const Tensor& self, const Scalar& alpha = 1.0);
/// gelu (elementwise.h) written into self.
EMBER_API const Tensor& gelu_(const Tensor& self, std::string_view approximate = "none");
/// log(1 + exp(beta·x)) / beta, x itself where beta·x > threshold.
EMBER_API Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);
EMBER_API Tensor hardswish(const Tensor& self);
EMBER_API const Tensor& hardswish_(const Tensor& self);
EMBER_API Tensor hardsigmoid(const Tensor& self);
EMBER_API const Tensor& hardsigmoid_(const Tensor& self);
/// a·sigmoid(b) for the halves (a, b) of self along dim.
EMBER_API Tensor glu(const Tensor& self, int64_t dim = -1);
/// x for x > 0, weight·x otherwise (one weight, or one per channel).
EMBER_API Tensor prelu(const Tensor& self, const Tensor& weight);
/// leaky_relu with slopes drawn from [lower, upper] (default generator) when training, their
/// mean otherwise. ATen's optional Generator argument is not there: Ember's generators are not
/// copyable values.
EMBER_API Tensor rrelu(const Tensor& self, const Scalar& lower = 0.125,
                       const Scalar& upper = 0.3333333333333333, bool training = false);
EMBER_API const Tensor& rrelu_(const Tensor& self, const Scalar& lower = 0.125,
                               const Scalar& upper = 0.3333333333333333, bool training = false);
/// self where self > threshold, value elsewhere.
EMBER_API Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
EMBER_API const Tensor& threshold_(const Tensor& self, const Scalar& threshold,
                                   const Scalar& value);
/// log(sigmoid(x)), computed stably.
EMBER_API Tensor log_sigmoid(const Tensor& self);
EMBER_API Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
EMBER_API Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);

// ---- Dropout (train=false or p=0 returns the input itself) ----

/// Zeroes each element with probability p and scales the rest by 1/(1-p).
EMBER_API Tensor dropout(const Tensor& input, double p, bool train);
EMBER_API const Tensor& dropout_(const Tensor& self, double p, bool train);
/// Zeroes whole channels of an [N, C, *] input (at least 2 dims).
EMBER_API Tensor feature_dropout(const Tensor& input, double p, bool train);
EMBER_API const Tensor& feature_dropout_(const Tensor& self, double p, bool train);
/// Alpha dropout (keeps SELU's zero mean and unit variance), of elements or of whole channels.
EMBER_API Tensor alpha_dropout(const Tensor& input, double p, bool train);
EMBER_API const Tensor& alpha_dropout_(const Tensor& self, double p, bool train);
EMBER_API Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
EMBER_API const Tensor& feature_alpha_dropout_(const Tensor& self, double p, bool train);

// ---- Layers ----

/// (x - mean) / sqrt(var + eps)·weight + bias over the trailing dims normalized_shape.
/// cudnn_enable is accepted and ignored, as on the CPU in LibTorch.
EMBER_API Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                            const std::optional<Tensor>& weight = {},
                            const std::optional<Tensor>& bias = {}, double eps = 1e-05,
                            bool cudnn_enable = true);
/// Rows of weight [V, D] at indices [*] -> [*, D]. A negative padding_idx means none (ATen's
/// convention; Python's F.embedding wraps negative values before calling this).
EMBER_API Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                           bool scale_grad_by_freq = false, bool sparse = false);
/// Bags of rows of weight: mode 0 sum, 1 mean, 2 max. Returns (output [B, D], offset2bag [n]: the
/// bag of each index, bag_size [B]: the non-padding indices per bag, max_indices: [B, D] rows
/// that won in max mode, else bag_size). ATen's CPU kernel leaves offset2bag empty and bag_size
/// zero in sum mode without per-sample weights (its backward does not need them); Ember always
/// fills them.
EMBER_API std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool sparse = false,
    const std::optional<Tensor>& per_sample_weights = {}, bool include_last_offset = false);
EMBER_API std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& per_sample_weights,
    bool include_last_offset, std::optional<int64_t> padding_idx);
/// input·weightᵀ + bias.
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias = {});
/// Σᵢⱼ input1[..., i]·weight[o, i, j]·input2[..., j] + bias[o].
EMBER_API Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                          const std::optional<Tensor>& bias = {});

// ---- Distances ----

/// ‖x1 - x2 + eps‖_p over the last dim.
EMBER_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2,
                                   double eps = 1e-06, bool keepdim = false);
/// Cosine of the angle between x1 and x2 along dim.
EMBER_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1,
                                   double eps = 1e-08);

}  // namespace ember
