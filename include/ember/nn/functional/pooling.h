// Functional pooling (LibTorch's torch/nn/functional/pooling.h):
//   namespace F = ember::nn::functional;
//   Tensor y = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2));
//   auto [v, i] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2));
//   Tensor z = F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2));
//   Tensor a = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({1, 1}));
// Inputs are (N, C, *spatial) or unbatched (C, *spatial); the ATen-style forms are in
// ember/ops/nn_pool.h.
#pragma once

#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn::functional {

/// Average pooling over windows of options.kernel_size().
EMBER_API Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
EMBER_API Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
EMBER_API Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);

/// Max pooling (with dilation, padding, ceil_mode).
EMBER_API Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
EMBER_API Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
EMBER_API Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
/// Max pooling and the int64 flat spatial index of each maximum.
EMBER_API std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                             const MaxPool1dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                             const MaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                             const MaxPool3dFuncOptions& options);

/// Adaptive max pooling to options.output_size() (a std::nullopt element keeps the input's size).
EMBER_API Tensor adaptive_max_pool1d(const Tensor& input,
                                     const AdaptiveMaxPool1dFuncOptions& options);
EMBER_API Tensor adaptive_max_pool2d(const Tensor& input,
                                     const AdaptiveMaxPool2dFuncOptions& options);
EMBER_API Tensor adaptive_max_pool3d(const Tensor& input,
                                     const AdaptiveMaxPool3dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(
    const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);

/// Adaptive average pooling to options.output_size().
EMBER_API Tensor adaptive_avg_pool1d(const Tensor& input,
                                     const AdaptiveAvgPool1dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& input,
                                     const AdaptiveAvgPool2dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool3d(const Tensor& input,
                                     const AdaptiveAvgPool3dFuncOptions& options);

/// The output size F::max_unpool uses: options' output_size (D or D + 2 values, each within a
/// stride of the default) or the default (in - 1)·stride - 2·padding + kernel_size.
EMBER_API std::vector<int64_t> _unpool_output_size(
    const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
    const std::optional<std::vector<int64_t>>& output_size);

/// Partial inverse of max pooling: input's values put at `indices` in a zero tensor.
EMBER_API Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool1dFuncOptions& options);
EMBER_API Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool2dFuncOptions& options);
EMBER_API Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool3dFuncOptions& options);

/// Fractional max pooling; windows placed by options._random_samples() or, when undefined, by
/// samples drawn from ember's default generator (seed it with ember::manual_seed).
EMBER_API Tensor fractional_max_pool2d(const Tensor& input,
                                       const FractionalMaxPool2dFuncOptions& options);
EMBER_API Tensor fractional_max_pool3d(const Tensor& input,
                                       const FractionalMaxPool3dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options);

/// Power-average pooling: (sum over the window of x^p)^(1/p), no padding (PyTorch's composite of
/// avg_pool, so a window summing to a negative value gives 0).
EMBER_API Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
EMBER_API Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);
EMBER_API Tensor lp_pool3d(const Tensor& input, const LPPool3dFuncOptions& options);

}  // namespace ember::nn::functional
