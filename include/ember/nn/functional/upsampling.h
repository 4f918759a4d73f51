// F::interpolate (LibTorch's torch/nn/functional/upsampling.h):
//   namespace F = ember::nn::functional;
//   Tensor y = F::interpolate(x, F::InterpolateFuncOptions()
//                                    .scale_factor(std::vector<double>{2, 2})
//                                    .mode(ember::kBilinear).align_corners(false));
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn::functional {

/// Resizes the spatial dims of input [N, C, W], [N, C, H, W] or [N, C, D, H, W] to options.size()
/// (or floor(size·scale_factor)) with options.mode(); PyTorch's semantics, checks and defaults.
/// Differentiable; a channels-last input gives a channels-last output.
EMBER_API Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

namespace detail {
/// interpolate with its options as arguments (what Upsample::forward calls).
EMBER_API Tensor interpolate(const Tensor& input, const std::optional<std::vector<int64_t>>& size,
                             const std::optional<std::vector<double>>& scale_factor,
                             InterpolateFuncOptions::mode_t mode, std::optional<bool> align_corners,
                             std::optional<bool> recompute_scale_factor, bool antialias);
}  // namespace detail

}  // namespace ember::nn::functional
