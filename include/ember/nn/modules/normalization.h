// Normalisation modules over the trailing dims (LibTorch's torch/nn/modules/normalization.h):
// LayerNorm, and RMSNorm as PyTorch's nn.RMSNorm; GroupNorm, LocalResponseNorm and CrossMapLRN2d
// (src/nn/modules/batchnorm_group.cpp).
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

/// Normalises [N, C, *] inputs per (sample, group of C / num_groups channels), then applies the
/// per-channel weight (ones) and bias (zeros), absent without affine.
class EMBER_API GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options_);
  void reset() override;
  /// weight to ones, bias to zeros.
  void reset_parameters();
  /// input [N, C, *] -> the same shape.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  GroupNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(GroupNorm);

/// x / (k + alpha / size · Σ x²)^beta over `size` neighbouring channels (F::local_response_norm).
class EMBER_API LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : LocalResponseNormImpl(LocalResponseNormOptions(size)) {}
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options_);
  void reset() override {}
  /// input [N, C, *] (rank 3 or more) -> the same shape.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  LocalResponseNormOptions options;
};
EMBER_MODULE(LocalResponseNorm);

/// Lua Torch's SpatialCrossMapLRN as LibTorch and PyTorch keep it: x · (k + alpha / size · Σ
/// x²)^-beta over a running window of channels, for [N, C, H, W] inputs. The window reproduces
/// LibTorch's loop exactly, including its quirk (from the 1-based Lua code) that channel 0 never
/// leaves the window once channel index exceeds (size - 1) / 2 + 1.
class EMBER_API CrossMapLRN2dImpl : public Cloneable<CrossMapLRN2dImpl> {
 public:
  CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_);
  void reset() override {}
  /// input [N, C, H, W] -> the same shape.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  CrossMapLRN2dOptions options;
};
EMBER_MODULE(CrossMapLRN2d);

}  // namespace ember::nn
