// ATen-style pooling functions (ember::max_pool2d, ember::avg_pool2d, ...), the forms LibTorch
// programs call as torch::max_pool2d. Inputs are (N, C, *spatial) or unbatched (C, *spatial) with
// 1, 2 or 3 spatial dims; float32, float64, bfloat16 and float16; channels-last inputs give
// channels-last outputs. Indices are int64 flat positions in each (n, c) plane's spatial volume.
// Every function is differentiable in `self` (float64 gradcheck in tests/nn/nn_ops_pool.cpp).
//   auto y = ember::max_pool2d(x, {3, 3}, {2, 2});                 // x [N, C, H, W]
//   auto [v, i] = ember::max_pool2d_with_indices(x, 2);
//   auto z = ember::max_unpool2d(v, i, {H, W});
#pragma once

#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

/// Max over windows of kernel_size taps spaced by dilation, moved by stride (default: the
/// kernel size) over the input padded by `padding` (-inf) on each side; ceil_mode rounds the
/// output size up (a window must still start inside the input or its left padding).
EMBER_API Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, IntArrayRef dilation = 1,
                            bool ceil_mode = false);
EMBER_API Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, IntArrayRef dilation = 1,
                            bool ceil_mode = false);
EMBER_API Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, IntArrayRef dilation = 1,
                            bool ceil_mode = false);
/// max_poolNd and the int64 index of each maximum (the first one; a NaN wins).
EMBER_API std::tuple<Tensor, Tensor> max_pool1d_with_indices(
    const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
    IntArrayRef dilation = 1, bool ceil_mode = false);
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(
    const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
    IntArrayRef dilation = 1, bool ceil_mode = false);
EMBER_API std::tuple<Tensor, Tensor> max_pool3d_with_indices(
    const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
    IntArrayRef dilation = 1, bool ceil_mode = false);

/// Mean over windows (zero padding); count_include_pad counts padded taps in the divisor,
/// divisor_override (non-zero) replaces it. avg_pool1d has no divisor_override, as in ATen.
EMBER_API Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, bool ceil_mode = false,
                            bool count_include_pad = true);
EMBER_API Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, bool ceil_mode = false,
                            bool count_include_pad = true,
                            std::optional<int64_t> divisor_override = std::nullopt);
EMBER_API Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, bool ceil_mode = false,
                            bool count_include_pad = true,
                            std::optional<int64_t> divisor_override = std::nullopt);

/// Mean over the windows [floor(o·in/out), ceil((o+1)·in/out)) giving exactly output_size.
EMBER_API Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size);
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);
EMBER_API Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size);
/// Max over the same windows, with indices.
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self,
                                                         IntArrayRef output_size);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self,
                                                         IntArrayRef output_size);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self,
                                                         IntArrayRef output_size);

/// The inverse of max pooling: zeros of spatial size output_size with self's values put at
/// `indices` (int64, self's shape). An index outside the output throws IndexError.
EMBER_API Tensor max_unpool1d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
EMBER_API Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
/// As ATen's, stride and padding are checked (positive, non-negative) but do not change the
/// result: output_size says it all.
EMBER_API Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                              IntArrayRef stride, IntArrayRef padding);

/// Fractional max pooling with windows of kernel_size placed by random_samples [N, C, 2] (or
/// [N, C, 3]) in [0, 1), of self's dtype: deterministic given the samples.
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self,
                                                           IntArrayRef kernel_size,
                                                           IntArrayRef output_size,
                                                           const Tensor& random_samples);
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self,
                                                           IntArrayRef kernel_size,
                                                           IntArrayRef output_size,
                                                           const Tensor& random_samples);

}  // namespace ember
