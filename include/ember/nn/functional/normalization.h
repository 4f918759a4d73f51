// Functional layer and RMS normalisation (LibTorch's torch/nn/functional/normalization.h):
//   Tensor y = F::layer_norm(x, F::LayerNormFuncOptions({512}).weight(g).bias(b));
//   Tensor z = F::rms_norm(x, F::RMSNormFuncOptions({512}).weight(g));
// Both normalise over the trailing dims `normalized_shape`; float16/bfloat16 inputs compute in
// float32 and round the result. Also F::group_norm, F::local_response_norm and F::normalize
// (src/nn/functional/batchnorm.cpp, batchnorm_lrn.cpp).
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

/// Normalises x [N, C, *] per (sample, group of C / num_groups channels), then applies the
/// per-channel weight and bias.
EMBER_API Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);

/// x / (k + alpha / size · Σ x²)^beta with the sum over `size` neighbouring channels (zero padded:
/// size / 2 before, (size - 1) / 2 after); x has at least 3 dims [N, C, *].
EMBER_API Tensor local_response_norm(const Tensor& input,
                                     const LocalResponseNormFuncOptions& options);

/// x / max(‖x‖_p, eps) along options.dim().
EMBER_API Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

namespace detail {
// Positional forms (as LibTorch's F::detail), for modules that keep their options.
EMBER_API Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                            const Tensor& bias, double eps);
EMBER_API Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                          std::optional<double> eps);
EMBER_API Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight,
                            const Tensor& bias, double eps);
EMBER_API Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta,
                                     double k);
EMBER_API Tensor normalize(const Tensor& input, double p, int64_t dim, double eps,
                           std::optional<Tensor> out);
}  // namespace detail

}  // namespace ember::nn::functional
