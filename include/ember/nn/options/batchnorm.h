// Options of BatchNorm1d/2d/3d and F::batch_norm, as LibTorch's torch/nn/options/batchnorm.h:
//   nn::BatchNorm2d bn(nn::BatchNorm2dOptions(16).momentum(std::nullopt));  // cumulative average
//   F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().weight(w).bias(b).training(true));
#pragma once

#include <cstdint>
#include <optional>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

/// Options of the BatchNorm modules.
struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  /// C, the channel count of the expected input [N, C, *].
  EMBER_ARG(int64_t, num_features);
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
  /// Weight of the batch's statistics in the running average; unset (std::nullopt): the
  /// cumulative moving average 1 / num_batches_tracked.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  /// Whether the module learns a per-channel weight (ones) and bias (zeros).
  EMBER_ARG(bool, affine) = true;
  /// Whether the module keeps running_mean / running_var / num_batches_tracked buffers (and uses
  /// them in eval mode); without, the batch's statistics are used in eval mode too.
  EMBER_ARG(bool, track_running_stats) = true;
};

using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

namespace functional {

/// Options of F::batch_norm.
struct BatchNormFuncOptions {
  /// Per-channel scale [C] (undefined: none).
  EMBER_ARG(Tensor, weight) = Tensor();
  /// Per-channel shift [C] (undefined: none).
  EMBER_ARG(Tensor, bias) = Tensor();
  /// Use (and blend into the running statistics) the batch's statistics.
  EMBER_ARG(bool, training) = false;
  /// Weight of the batch's statistics in the running average; F::batch_norm needs a value.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
};

}  // namespace functional
}  // namespace ember::nn
