// F::grid_sample and F::affine_grid (LibTorch's torch/nn/functional/vision.h): spatial
// transformer building blocks.
//   Tensor grid = F::affine_grid(theta, {N, C, H, W});   // theta [N, 2, 3] -> [N, H, W, 2]
//   Tensor y = F::grid_sample(x, grid, F::GridSampleFuncOptions().align_corners(false));
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/vision.h"

namespace ember::nn::functional {

/// The sampling grid of a batch of affine maps: theta [N, 2, 3] with size [N, C, H, W] gives
/// [N, H, W, 2]; theta [N, 3, 4] with size [N, C, D, H, W] gives [N, D, H, W, 3]. Differentiable.
EMBER_API Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);

/// Samples input [N, C, H, W] ([N, C, D, H, W]) at grid [N, H', W', 2] ([N, D', H', W', 3]) of
/// coordinates in [-1, 1] (x indexes W): [N, C, H', W'] ([N, C, D', H', W']). Differentiable in
/// input and grid.
EMBER_API Tensor grid_sample(const Tensor& input, const Tensor& grid,
                             const GridSampleFuncOptions& options = {});

namespace detail {
/// grid_sample with its options as arguments.
EMBER_API Tensor grid_sample(const Tensor& input, const Tensor& grid,
                             GridSampleFuncOptions::mode_t mode,
                             GridSampleFuncOptions::padding_mode_t padding_mode,
                             std::optional<bool> align_corners);
}  // namespace detail

}  // namespace ember::nn::functional
