// Activation modules (LibTorch's torch/nn/modules/activation.h): each keeps its options and
// forwards to the functional form in nn/functional/activation.h.
//
//   nn::Sequential mlp(nn::Linear(4, 8),
//   nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)));
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/fused_forward.h"
#include "ember/nn/options/activation.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// max(0, x).
class EMBER_API ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const ReLUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ReLUOptions options;
  /// Set by nn::utils::fuse_modules when this layer was fused (nn/fused_forward.h).
  detail::FusedForward _fused_forward;
};
EMBER_MODULE(ReLU);

/// min(max(0, x), 6).
class EMBER_API ReLU6Impl : public Cloneable<ReLU6Impl> {
 public:
  explicit ReLU6Impl(const ReLU6Options& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ReLU6Options options;
};
EMBER_MODULE(ReLU6);

/// x, or negative_slope * x below 0.
class EMBER_API LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

/// leaky ReLU with a random slope in [lower, upper] while training, their mean in eval.
class EMBER_API RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  RReLUOptions options;
};
EMBER_MODULE(RReLU);

/// x, or alpha * (exp(x) - 1) below 0.
class EMBER_API ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ELUOptions options;
};
EMBER_MODULE(ELU);

/// scale * elu(x, alpha) with the self-normalising constants.
class EMBER_API SELUImpl : public Cloneable<SELUImpl> {
 public:
  explicit SELUImpl(const SELUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  SELUOptions options;
};
EMBER_MODULE(SELU);

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
class EMBER_API CELUImpl : public Cloneable<CELUImpl> {
 public:
  explicit CELUImpl(const CELUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  CELUOptions options;
};
EMBER_MODULE(CELU);

/// x * Phi(x) (approximate "none") or its tanh form.
class EMBER_API GELUImpl : public Cloneable<GELUImpl> {
 public:
  explicit GELUImpl(const GELUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  GELUOptions options;
};
EMBER_MODULE(GELU);

/// clamp(x, min_val, max_val).
class EMBER_API HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

/// log(1 + exp(beta x)) / beta (linear above threshold).
class EMBER_API SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  SoftplusOptions options;
};
EMBER_MODULE(Softplus);

/// x -+ lambda outside [-lambda, lambda], else 0.
class EMBER_API SoftshrinkImpl : public Cloneable<SoftshrinkImpl> {
 public:
  explicit SoftshrinkImpl(const SoftshrinkOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  SoftshrinkOptions options;
};
EMBER_MODULE(Softshrink);

/// x outside [-lambda, lambda], else 0.
class EMBER_API HardshrinkImpl : public Cloneable<HardshrinkImpl> {
 public:
  explicit HardshrinkImpl(const HardshrinkOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  HardshrinkOptions options;
};
EMBER_MODULE(Hardshrink);

/// x above threshold, else value.
class EMBER_API ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value)
      : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options_) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

/// softmax along dim.
class EMBER_API SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(const SoftmaxOptions& options_) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

/// log(softmax) along dim, computed stably.
class EMBER_API LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options_) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

/// softmax(-x) along dim.
class EMBER_API SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(const SoftminOptions& options_) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  SoftminOptions options;
};
EMBER_MODULE(Softmin);

/// a * sigmoid(b), a and b the halves of dim.
class EMBER_API GLUImpl : public Cloneable<GLUImpl> {
 public:
  explicit GLUImpl(const GLUOptions& options_ = {}) : options(options_) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  GLUOptions options;
};
EMBER_MODULE(GLU);

/// x * sigmoid(x).
class EMBER_API SiLUImpl : public Cloneable<SiLUImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(SiLU);

/// x * tanh(softplus(x)).
class EMBER_API MishImpl : public Cloneable<MishImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Mish);

/// 1 / (1 + exp(-x)).
class EMBER_API SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Sigmoid);

/// tanh(x).
class EMBER_API TanhImpl : public Cloneable<TanhImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Tanh);

/// clamp(x / 6 + 1/2, 0, 1).
class EMBER_API HardsigmoidImpl : public Cloneable<HardsigmoidImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Hardsigmoid);

/// x * hardsigmoid(x).
class EMBER_API HardswishImpl : public Cloneable<HardswishImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Hardswish);

/// x - tanh(x).
class EMBER_API TanhshrinkImpl : public Cloneable<TanhshrinkImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Tanhshrink);

/// log(sigmoid(x)), computed stably.
class EMBER_API LogSigmoidImpl : public Cloneable<LogSigmoidImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(LogSigmoid);

/// x / (1 + |x|).
class EMBER_API SoftsignImpl : public Cloneable<SoftsignImpl> {
 public:
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Softsign);

/// max(0, x) + weight * min(0, x), with a learned weight (one, or one per channel = dim 1).
class EMBER_API PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options_ = {});
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PReLUOptions options;
  Tensor weight;
};
EMBER_MODULE(PReLU);

}  // namespace ember::nn
