// ATen-style batch, instance and group normalisation (LibTorch's torch::batch_norm,
// torch::instance_norm, torch::group_norm, torch::native_batch_norm):
//   Tensor y = ember::batch_norm(x, w, b, running_mean, running_var, /*training=*/true,
//                                /*momentum=*/0.1, /*eps=*/1e-5, /*cudnn_enabled=*/true);
// Inputs are [N, C, *]; statistics are computed in double, the output keeps the input's dtype and,
// for batch and instance norm, a channels-last input's layout. Training updates running_mean /
// running_var in place (unbiased variance) when they are given.
#pragma once

#include <cstdint>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

/// (x - mean) / sqrt(var + eps) · weight + bias per channel (dim 1). With `training` the batch's
/// statistics are used (and blended into running_mean / running_var by `momentum` when they are
/// defined); otherwise running_mean / running_var are. weight, bias, running_mean, running_var
/// are [C] or undefined. cudnn_enabled is accepted for LibTorch compatibility and ignored.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Tensor& running_mean, const Tensor& running_var, bool training,
                            double momentum, double eps, bool cudnn_enabled = true);

/// batch_norm that also returns the saved batch statistics: (output, save_mean, save_invstd),
/// both [C] in float (double for float64 input) when training, empty ([0]) otherwise.
EMBER_API std::tuple<Tensor, Tensor, Tensor> native_batch_norm(
    const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
    const Tensor& running_var, bool training, double momentum, double eps);

/// Normalisation per (sample, channel) over the spatial dims. With use_input_stats the input's
/// statistics are used and running_mean / running_var (if defined) receive their batch average;
/// otherwise running_mean / running_var are used, as batch norm in eval mode.
EMBER_API Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                               const Tensor& running_mean, const Tensor& running_var,
                               bool use_input_stats, double momentum, double eps,
                               bool cudnn_enabled = true);

/// Normalisation per (sample, group of C / num_groups channels), then the per-channel affine
/// weight / bias ([C] or undefined). num_groups must divide C.
EMBER_API Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                            const Tensor& bias = {}, double eps = 1e-5, bool cudnn_enabled = true);

}  // namespace ember
