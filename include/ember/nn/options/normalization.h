// Options of LayerNorm and RMSNorm, as LibTorch's torch/nn/options/normalization.h:
//   nn::LayerNorm ln(nn::LayerNormOptions({512}).eps(1e-6));
//   F::layer_norm(x, F::LayerNormFuncOptions({512}).weight(w).bias(b));
//   F::rms_norm(x, F::RMSNormFuncOptions({512}).weight(w));
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

namespace functional {

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
