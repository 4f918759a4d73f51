// Loss modules (LibTorch's torch/nn/modules/loss.h): each keeps its options and calls the
// functional form of nn/functional/loss.h. The losses with class or element weights register
// them as buffers exactly where Python does ("weight"; BCEWithLogitsLoss also "pos_weight"), so
// they follow to() and state_dict keys match Python's; an absent weight is an undefined buffer,
// which state_dict skips (Python's None).
//
//   nn::CrossEntropyLoss criterion(nn::CrossEntropyLossOptions().label_smoothing(0.1));
//   Tensor loss = criterion(logits, labels);   // logits [N, C], labels [N] int64
//   nn::BCEWithLogitsLoss bce(nn::BCEWithLogitsLossOptions().pos_weight(ember::full({C}, 3.0)));
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// Mean absolute error |input - target| (input and target broadcast together).
class EMBER_API L1LossImpl : public Cloneable<L1LossImpl> {
 public:
  explicit L1LossImpl(const L1LossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

/// Mean squared error (input - target)^2.
class EMBER_API MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  explicit MSELossImpl(const MSELossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

/// Huber loss: quadratic below delta, linear above.
class EMBER_API HuberLossImpl : public Cloneable<HuberLossImpl> {
 public:
  explicit HuberLossImpl(const HuberLossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  HuberLossOptions options;
};
EMBER_MODULE(HuberLoss);

/// Smooth L1 loss: quadratic below beta, linear above.
class EMBER_API SmoothL1LossImpl : public Cloneable<SmoothL1LossImpl> {
 public:
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

/// KL divergence of input (log-probabilities) from target.
class EMBER_API KLDivLossImpl : public Cloneable<KLDivLossImpl> {
 public:
  explicit KLDivLossImpl(const KLDivLossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  KLDivLossOptions options;
};
EMBER_MODULE(KLDivLoss);

/// Poisson negative log-likelihood of target counts.
class EMBER_API PoissonNLLLossImpl : public Cloneable<PoissonNLLLossImpl> {
 public:
  explicit PoissonNLLLossImpl(const PoissonNLLLossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& log_input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  PoissonNLLLossOptions options;
};
EMBER_MODULE(PoissonNLLLoss);

/// Gaussian negative log-likelihood; var has input's shape or one value per sample (Python's
/// nn.GaussianNLLLoss; LibTorch has no module).
class EMBER_API GaussianNLLLossImpl : public Cloneable<GaussianNLLLossImpl> {
 public:
  explicit GaussianNLLLossImpl(const GaussianNLLLossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);
  void pretty_print(std::ostream& stream) const override;
  GaussianNLLLossOptions options;
};
EMBER_MODULE(GaussianNLLLoss);

/// Negative log-likelihood of int64 class indices: input [N, C] / [C] / [N, C, d1, ...]
/// log-probabilities. Registers buffer "weight" (undefined when not given), as Python.
class EMBER_API NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  NLLLossOptions options;
  Tensor weight;
};
EMBER_MODULE(NLLLoss);

/// Cross entropy of logits [N, C] / [C] / [N, C, d1, ...] against class indices or class
/// probabilities. Registers buffer "weight" (undefined when not given), as Python.
class EMBER_API CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CrossEntropyLossOptions options;
  Tensor weight;
};
EMBER_MODULE(CrossEntropyLoss);

/// Binary cross entropy of probabilities (same shape as target).
/// Registers buffer "weight" (undefined when not given), as Python.
class EMBER_API BCELossImpl : public Cloneable<BCELossImpl> {
 public:
  explicit BCELossImpl(const BCELossOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCELossOptions options;
  Tensor weight;
};
EMBER_MODULE(BCELoss);

/// Binary cross entropy of logits; pos_weight scales the positive term per class.
/// Registers buffers "weight", "pos_weight" (undefined when not given), as Python.
class EMBER_API BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCEWithLogitsLossOptions options;
  Tensor weight, pos_weight;
};
EMBER_MODULE(BCEWithLogitsLoss);

/// Two-class logistic loss log(1 + exp(-target * input)), targets in {-1, 1}.
class EMBER_API SoftMarginLossImpl : public Cloneable<SoftMarginLossImpl> {
 public:
  explicit SoftMarginLossImpl(const SoftMarginLossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  SoftMarginLossOptions options;
};
EMBER_MODULE(SoftMarginLoss);

/// Per-class logistic loss averaged over the classes: input [N, C], target 0/1.
/// Registers buffer "weight" (undefined when not given), as Python.
class EMBER_API MultiLabelSoftMarginLossImpl : public Cloneable<MultiLabelSoftMarginLossImpl> {
 public:
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MultiLabelSoftMarginLossOptions options;
  Tensor weight;
};
EMBER_MODULE(MultiLabelSoftMarginLoss);

/// Multi-class hinge loss: input [N, C] or [C], int64 target [N] or [].
/// Registers buffer "weight" (undefined when not given), as Python.
class EMBER_API MultiMarginLossImpl : public Cloneable<MultiMarginLossImpl> {
 public:
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MultiMarginLossOptions options;
  Tensor weight;
};
EMBER_MODULE(MultiMarginLoss);

/// Multi-class multi-label hinge loss: int64 target of input's shape, ended by -1.
class EMBER_API MultiLabelMarginLossImpl : public Cloneable<MultiLabelMarginLossImpl> {
 public:
  explicit MultiLabelMarginLossImpl(const MultiLabelMarginLossOptions& options_ = {})
      : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MultiLabelMarginLossOptions options;
};
EMBER_MODULE(MultiLabelMarginLoss);

/// max(0, -target * (input1 - input2) + margin), targets in {-1, 1}.
class EMBER_API MarginRankingLossImpl : public Cloneable<MarginRankingLossImpl> {
 public:
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options_ = {})
      : options(options_) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MarginRankingLossOptions options;
};
EMBER_MODULE(MarginRankingLoss);

/// input where target is 1, max(0, margin - input) where it is -1.
class EMBER_API HingeEmbeddingLossImpl : public Cloneable<HingeEmbeddingLossImpl> {
 public:
  explicit HingeEmbeddingLossImpl(const HingeEmbeddingLossOptions& options_ = {})
      : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  HingeEmbeddingLossOptions options;
};
EMBER_MODULE(HingeEmbeddingLoss);

/// 1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1.
class EMBER_API CosineEmbeddingLossImpl : public Cloneable<CosineEmbeddingLossImpl> {
 public:
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options_ = {})
      : options(options_) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CosineEmbeddingLossOptions options;
};
EMBER_MODULE(CosineEmbeddingLoss);

/// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance.
class EMBER_API TripletMarginLossImpl : public Cloneable<TripletMarginLossImpl> {
 public:
  explicit TripletMarginLossImpl(const TripletMarginLossOptions& options_ = {})
      : options(options_) {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  void pretty_print(std::ostream& stream) const override;
  TripletMarginLossOptions options;
};
EMBER_MODULE(TripletMarginLoss);

/// TripletMarginLoss with a caller-given distance function.
class EMBER_API TripletMarginWithDistanceLossImpl
    : public Cloneable<TripletMarginWithDistanceLossImpl> {
 public:
  explicit TripletMarginWithDistanceLossImpl(
      const TripletMarginWithDistanceLossOptions& options_ = {})
      : options(options_) {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  void pretty_print(std::ostream& stream) const override;
  TripletMarginWithDistanceLossOptions options;
};
EMBER_MODULE(TripletMarginWithDistanceLoss);

/// Connectionist temporal classification: log_probs [T, N, C] (or [T, C]).
class EMBER_API CTCLossImpl : public Cloneable<CTCLossImpl> {
 public:
  explicit CTCLossImpl(const CTCLossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  void pretty_print(std::ostream& stream) const override;
  CTCLossOptions options;
};
EMBER_MODULE(CTCLoss);
}  // namespace ember::nn
