// Functional layer and RMS normalisation (LibTorch's torch/nn/functional/normalization.h):
//   Tensor y = F::layer_norm(x, F::LayerNormFuncOptions({512}).weight(g).bias(b));
//   Tensor z = F::rms_norm(x, F::RMSNormFuncOptions({512}).weight(g));
// Both normalise over the trailing dims `normalized_shape`; float16/bfloat16 inputs compute in
// float32 and round the result.
#pragma once

#include <optional>

#include "ember/core/tensor.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn::functional {

/// (x - mean) / sqrt(var + eps) · weight + bias, with the biased variance over the trailing dims.
EMBER_API Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

/// x / sqrt(mean(x²) + eps) · weight over the trailing dims; eps defaults to the machine epsilon
/// of the compute dtype, as PyTorch's F.rms_norm.
EMBER_API Tensor rms_norm(const Tensor& input, const RMSNormFuncOptions& options);

namespace detail {
// Positional forms (as LibTorch's F::detail), for modules that keep their options.
EMBER_API Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                            const Tensor& bias, double eps);
EMBER_API Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                          std::optional<double> eps);
}  // namespace detail

}  // namespace ember::nn::functional
