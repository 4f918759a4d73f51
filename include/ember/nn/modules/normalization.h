// Normalisation modules over the trailing dims (LibTorch's torch/nn/modules/normalization.h):
// LayerNorm, and RMSNorm as PyTorch's nn.RMSNorm.
//
//   nn::LayerNorm ln(nn::LayerNormOptions({512}).eps(1e-6));   // weight ones, bias zeros
//   Tensor y = ln(x);                                           // x [*, 512]
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// (x - mean) / sqrt(var + eps) · weight + bias over the trailing dims options.normalized_shape().
/// weight (ones) and bias (zeros) have that shape; without elementwise_affine there are none
/// (registered as undefined, so state_dict has no keys for them, as Python).
class EMBER_API LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options_);
  void reset() override;
  /// weight to ones, bias to zeros.
  void reset_parameters();
  /// input [*, normalized_shape...] -> the same shape.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  LayerNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(LayerNorm);

/// x / sqrt(mean(x²) + eps) · weight over the trailing dims; weight (ones) has shape
/// normalized_shape, or is absent without elementwise_affine.
class EMBER_API RMSNormImpl : public Cloneable<RMSNormImpl> {
 public:
  RMSNormImpl(std::vector<int64_t> normalized_shape)
      : RMSNormImpl(RMSNormOptions(std::move(normalized_shape))) {}
  explicit RMSNormImpl(const RMSNormOptions& options_);
  void reset() override;
  /// weight to ones.
  void reset_parameters();
  /// input [*, normalized_shape...] -> the same shape.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  RMSNormOptions options;
  Tensor weight;
};
EMBER_MODULE(RMSNorm);

}  // namespace ember::nn
