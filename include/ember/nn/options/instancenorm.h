// Options of InstanceNorm1d/2d/3d and F::instance_norm, as LibTorch's
// torch/nn/options/instancenorm.h:
//   nn::InstanceNorm2d in(nn::InstanceNorm2dOptions(16).affine(true));
//   F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b));
#pragma once

#include <cstdint>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/options/batchnorm.h"

namespace ember::nn {

/// Options of the InstanceNorm modules (no affine parameters and no running statistics by
/// default, as PyTorch).
struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}
  /// C, the channel count of the expected input [N, C, *].
  EMBER_ARG(int64_t, num_features);
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
  /// Weight of the batch's statistics in the running average.
  EMBER_ARG(double, momentum) = 0.1;
  /// Whether the module learns a per-channel weight (ones) and bias (zeros).
  EMBER_ARG(bool, affine) = false;
  /// Whether the module keeps running statistics (used in eval mode).
  EMBER_ARG(bool, track_running_stats) = false;
};

using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

namespace functional {

/// Options of F::instance_norm.
struct InstanceNormFuncOptions {
  /// [C] running mean, updated in place with use_input_stats (undefined: none).
  EMBER_ARG(Tensor, running_mean) = Tensor();
  /// [C] running variance, updated in place with use_input_stats (undefined: none).
  EMBER_ARG(Tensor, running_var) = Tensor();
  /// Per-channel scale [C] (undefined: none).
  EMBER_ARG(Tensor, weight) = Tensor();
  /// Per-channel shift [C] (undefined: none).
  EMBER_ARG(Tensor, bias) = Tensor();
  /// Normalise with each instance's statistics (false: with running_mean / running_var).
  EMBER_ARG(bool, use_input_stats) = true;
  /// Weight of the batch's statistics in the running average.
  EMBER_ARG(double, momentum) = 0.1;
  /// Added to the variance before its square root.
  EMBER_ARG(double, eps) = 1e-5;
};

}  // namespace functional
}  // namespace ember::nn
