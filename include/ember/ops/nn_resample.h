// LibTorch's ATen-level resampling functions, with ATen's signatures:
//   Tensor y = torch::upsample_bilinear2d(x, {64, 64}, /*align_corners=*/false);
//   Tensor z = torch::upsample_nearest2d(x, {8, 8}, 2.0, 2.0);  // 2x, with the scales given
//   Tensor s = torch::grid_sampler(x, grid, 0, 0, false);  // bilinear, zeros padding
//   Tensor g = torch::affine_grid_generator(theta, {1, 3, 8, 8}, false);
// `output_size` lists the spatial sizes; a `scales_*` argument, when given, is the factor the
// user asked for (output / input): the kernels then map coordinates with 1/scale instead of
// input/output, as PyTorch does. The inputs are [N, C, *spatial] (1, 2 or 3 spatial dims as the
// name says); a channels-last input gives a channels-last output. All are differentiable (the
// upsampling backward is itself differentiable, so double backward works; grid_sampler's is not,
// as in PyTorch). F::interpolate and F::grid_sample (ember/nn/functional/) choose among these.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// ---- Nearest neighbour (PyTorch's legacy rounding: floor(dst·in/out)) ----

/// [N, C, W] -> [N, C, output_size[0]].
EMBER_API Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size,
                                    std::optional<double> scales = std::nullopt);
/// [N, C, H, W] -> [N, C, *output_size].
EMBER_API Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);
/// [N, C, D, H, W] -> [N, C, *output_size].
EMBER_API Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size,
                                    std::optional<double> scales_d = std::nullopt,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);

// ---- Nearest neighbour with pixel centres aligned (floor((dst + 0.5)·in/out)) ----

/// As upsample_nearest1d with nearest-exact rounding.
EMBER_API Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size,
                                           std::optional<double> scales = std::nullopt);
/// As upsample_nearest2d with nearest-exact rounding.
EMBER_API Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                           std::optional<double> scales_h = std::nullopt,
                                           std::optional<double> scales_w = std::nullopt);
/// As upsample_nearest3d with nearest-exact rounding.
EMBER_API Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size,
                                           std::optional<double> scales_d = std::nullopt,
                                           std::optional<double> scales_h = std::nullopt,
                                           std::optional<double> scales_w = std::nullopt);

// ---- Linear family ----

/// Linear interpolation of [N, C, W].
EMBER_API Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                   std::optional<double> scales = std::nullopt);
/// Bilinear interpolation of [N, C, H, W].
EMBER_API Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size,
                                     bool align_corners,
                                     std::optional<double> scales_h = std::nullopt,
                                     std::optional<double> scales_w = std::nullopt);
/// Bicubic interpolation (A = -0.75, borders clamped) of [N, C, H, W].
EMBER_API Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);
/// Trilinear interpolation of [N, C, D, H, W].
EMBER_API Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size,
                                      bool align_corners,
                                      std::optional<double> scales_d = std::nullopt,
                                      std::optional<double> scales_h = std::nullopt,
                                      std::optional<double> scales_w = std::nullopt);
/// Antialiased bilinear resize (a triangle filter widened by the shrink factor) of [N, C, H, W].
EMBER_API Tensor _upsample_bilinear2d_aa(const Tensor& self, IntArrayRef output_size,
                                         bool align_corners,
                                         std::optional<double> scales_h = std::nullopt,
                                         std::optional<double> scales_w = std::nullopt);
/// Antialiased bicubic resize (Keys' a = -0.5 filter) of [N, C, H, W].
EMBER_API Tensor _upsample_bicubic2d_aa(const Tensor& self, IntArrayRef output_size,
                                        bool align_corners,
                                        std::optional<double> scales_h = std::nullopt,
                                        std::optional<double> scales_w = std::nullopt);

// ---- grid_sample and affine_grid ----

/// Samples input [N, C, H, W] (or [N, C, D, H, W]) at grid [N, H', W', 2] (or [N, D', H', W', 3])
/// of normalised coordinates in [-1, 1]: interpolation_mode 0 bilinear, 1 nearest, 2 bicubic (2-D
/// only); padding_mode 0 zeros, 1 border, 2 reflection. Result [N, C, H', W'] ([N, C, D', H', W']).
EMBER_API Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                              int64_t padding_mode, bool align_corners);
/// grid_sampler for a 4-D input.
EMBER_API Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid,
                                 int64_t interpolation_mode, int64_t padding_mode,
                                 bool align_corners);
/// grid_sampler for a 5-D input.
EMBER_API Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid,
                                 int64_t interpolation_mode, int64_t padding_mode,
                                 bool align_corners);
/// The sampling grid of affine maps theta [N, 2, 3] (size [N, C, H, W]; grid [N, H, W, 2]) or
/// [N, 3, 4] (size [N, C, D, H, W]; grid [N, D, H, W, 3]): grid = base · thetaᵀ with base the
/// normalised pixel centres (corners with align_corners). Differentiable in theta.
EMBER_API Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners);

}  // namespace ember
