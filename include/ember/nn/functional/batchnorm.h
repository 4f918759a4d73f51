// Functional batch normalisation (LibTorch's torch/nn/functional/batchnorm.h):
//   Tensor y = F::batch_norm(x, running_mean, running_var,
//                            F::BatchNormFuncOptions().weight(w).bias(b).training(true));
#pragma once

#include <optional>

#include "ember/core/tensor.h"
#include "ember/nn/options/batchnorm.h"

namespace ember::nn::functional {

namespace detail {
/// Positional form, as LibTorch's F::detail::batch_norm: checks that training has more than one
/// value per channel, then calls ember::batch_norm.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& running_mean,
                            const Tensor& running_var, Tensor weight, Tensor bias, bool training,
                            std::optional<double> momentum, double eps);
}  // namespace detail

/// (x - mean) / sqrt(var + eps) · weight + bias per channel of x [N, C, *]: the batch's
/// statistics when training (blended into running_mean / running_var, which may be undefined),
/// else running_mean / running_var.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& running_mean,
                            const Tensor& running_var, const BatchNormFuncOptions& options = {});

}  // namespace ember::nn::functional
