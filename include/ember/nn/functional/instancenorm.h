// Functional instance normalisation (LibTorch's torch/nn/functional/instancenorm.h):
//   Tensor y = F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b));
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/instancenorm.h"

namespace ember::nn::functional {

namespace detail {
/// Positional form, as LibTorch's F::detail::instance_norm.
EMBER_API Tensor instance_norm(const Tensor& input, const Tensor& running_mean,
                               const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                               bool use_input_stats, double momentum, double eps);
}  // namespace detail

/// Normalises each (sample, channel) of x [N, C, *] over its spatial dims, then applies the
/// per-channel weight and bias.
EMBER_API Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

}  // namespace ember::nn::functional
