// Options of LayerNorm and RMSNorm, as LibTorch's torch/nn/options/normalization.h:
//   nn::LayerNorm ln(nn::LayerNormOptions({512}).eps(1e-6));
//   F::layer_norm(x, F::LayerNormFuncOptions({512}).weight(w).bias(b));
//   F::rms_norm(x, F::RMSNormFuncOptions({512}).weight(w));
//   nn::GroupNorm gn(nn::GroupNormOptions(/*num_groups=*/4, /*num_channels=*/16));
//   F::local_response_norm(x, F::LocalResponseNormFuncOptions(/*size=*/5));
//   F::normalize(x, F::NormalizeFuncOptions().p(2).dim(1));
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

/// Options of LayerNorm: normalises over the trailing dims `normalized_shape`.
struct LayerNormOptions {
  /* implicit */ LayerNormOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing input dims the statistics are taken over.
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
  /// Whether the module learns a per-element weight (ones) and bias (zeros).
  EMBER_ARG(bool, elementwise_affine) = true;
  /// With elementwise_affine, whether it learns the bias too (Python 2.1's LayerNorm(bias=)).
  EMBER_ARG(bool, bias) = true;
};

/// Options of RMSNorm (PyTorch's nn.RMSNorm): x / sqrt(mean(x²) + eps) · weight.
struct RMSNormOptions {
  /* implicit */ RMSNormOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing input dims the mean square is taken over.
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  /// Added to the mean square; none means the machine epsilon of the compute dtype
  /// (float32's for float32/float16/bfloat16 inputs, float64's for float64).
  EMBER_ARG(std::optional<double>, eps) = std::nullopt;
  /// Whether the module learns a per-element weight (ones).
  EMBER_ARG(bool, elementwise_affine) = true;
};

/// Options of LocalResponseNorm: x / (k + alpha / size · Σ_window x²)^beta over `size` neighbouring
/// channels.
struct LocalResponseNormOptions {
  /* implicit */ LocalResponseNormOptions(int64_t size) : size_(size) {}
  /// The number of neighbouring channels summed over.
  EMBER_ARG(int64_t, size);
  /// Multiplicative factor of the window's mean square.
  EMBER_ARG(double, alpha) = 1e-4;
  /// Exponent.
  EMBER_ARG(double, beta) = 0.75;
  /// Additive factor.
  EMBER_ARG(double, k) = 1.;
};

/// Options of CrossMapLRN2d (the Lua Torch SpatialCrossMapLRN that LibTorch keeps).
struct CrossMapLRN2dOptions {
  /* implicit */ CrossMapLRN2dOptions(int64_t size) : size_(size) {}
  /// The number of neighbouring channels summed over.
  EMBER_ARG(int64_t, size);
  /// Multiplicative factor of the window's mean square.
  EMBER_ARG(double, alpha) = 1e-4;
  /// Exponent.
  EMBER_ARG(double, beta) = 0.75;
  /// Additive factor (an integer, as LibTorch's).
  EMBER_ARG(int64_t, k) = 1;
};

/// Options of GroupNorm: C channels normalised in num_groups groups.
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  /// The number of channel groups; must divide num_channels.
  EMBER_ARG(int64_t, num_groups);
  /// C, the channel count of the expected input [N, C, *].
  EMBER_ARG(int64_t, num_channels);
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
  /// Whether the module learns a per-channel weight (ones) and bias (zeros).
  EMBER_ARG(bool, affine) = true;
};

namespace functional {

/// Options of F::local_response_norm.
using LocalResponseNormFuncOptions = LocalResponseNormOptions;

/// Options of F::normalize: x / max(‖x‖_p, eps) along dim.
struct NormalizeFuncOptions {
  /// The norm's exponent.
  EMBER_ARG(double, p) = 2.0;
  /// The dim the norm is taken along.
  EMBER_ARG(int64_t, dim) = 1;
  /// Lower bound of the norm, which keeps zero vectors finite.
  EMBER_ARG(double, eps) = 1e-12;
  /// Written with the result when given (not differentiable, as LibTorch's out=).
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;
};

/// Options of F::group_norm.
struct GroupNormFuncOptions {
  /* implicit */ GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  /// The number of channel groups; must divide the input's channel count.
  EMBER_ARG(int64_t, num_groups);
  /// Per-channel scale [C] (undefined: none).
  EMBER_ARG(Tensor, weight) = {};
  /// Per-channel shift [C] (undefined: none).
  EMBER_ARG(Tensor, bias) = {};
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
};

/// Options of F::layer_norm.
struct LayerNormFuncOptions {
  /* implicit */ LayerNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing input dims the statistics are taken over.
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  /// Per-element scale of shape normalized_shape (undefined: none).
  EMBER_ARG(Tensor, weight) = {};
  /// Per-element shift of shape normalized_shape (undefined: none).
  EMBER_ARG(Tensor, bias) = {};
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
};

/// Options of F::rms_norm.
struct RMSNormFuncOptions {
  /* implicit */ RMSNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing input dims the mean square is taken over.
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  /// Per-element scale of shape normalized_shape (undefined: none).
  EMBER_ARG(Tensor, weight) = {};
  /// Added to the mean square; none means the machine epsilon of the compute dtype.
  EMBER_ARG(std::optional<double>, eps) = std::nullopt;
};

}  // namespace functional
}  // namespace ember::nn
