// Options of the pooling modules and functionals, as LibTorch's torch/nn/options/pooling.h:
//   nn::MaxPool2d pool(nn::MaxPool2dOptions(3).stride(2).padding(1));
//   F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).count_include_pad(false));
// The stride defaults to the kernel size.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/expanding_array.h"
#include "ember/core/tensor.h"

namespace ember::nn {

/// Options of AvgPool1d/2d/3d.
template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT: LibTorch converts implicitly
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The window's size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The window's step (default: kernel_size).
  EMBER_ARG(ExpandingArray<D>, stride);
  /// Implicit zero padding on both sides (at most half the kernel).
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// Round the output size up instead of down.
  EMBER_ARG(bool, ceil_mode) = false;
  /// Count the zero padding in the divisor.
  EMBER_ARG(bool, count_include_pad) = true;
  /// A fixed divisor instead of the window's size.
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

/// Options of MaxPool1d/2d/3d.
template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT: LibTorch converts implicitly
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The window's size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The window's step (default: kernel_size).
  EMBER_ARG(ExpandingArray<D>, stride);
  /// Implicit -inf padding on both sides (at most half the kernel).
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// Spacing between the window's taps.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Round the output size up instead of down.
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

/// Options of AdaptiveMaxPool1d/2d/3d: the output's spatial size (2-d and 3-d may leave a dim
/// as std::nullopt to keep the input's size).
template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(output_size_t output_size)  // NOLINT: LibTorch converts implicitly
      : output_size_(output_size) {}
  /// The output's spatial size.
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<3>>;

/// Options of AdaptiveAvgPool1d/2d/3d.
template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size)  // NOLINT: LibTorch converts implicitly
      : output_size_(output_size) {}
  /// The output's spatial size.
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;

/// Options of MaxUnpool1d/2d/3d (the pooling being inverted).
template <size_t D>
struct MaxUnpoolOptions {
  MaxUnpoolOptions(ExpandingArray<D> kernel_size)  // NOLINT: LibTorch converts implicitly
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The pooling's window size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The pooling's stride (default: kernel_size).
  EMBER_ARG(ExpandingArray<D>, stride);
  /// The pooling's padding.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

/// Options of FractionalMaxPool2d/3d: output_size or output_ratio (exactly one of them).
template <size_t D>
struct FractionalMaxPoolOptions {
  FractionalMaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT: LibTorch converts
      : kernel_size_(kernel_size) {}
  /// The window's size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The output's spatial size.
  EMBER_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  using ExpandingArrayDouble = ExpandingArray<D, double>;
  /// The output's size as a fraction of the input's, each in (0, 1).
  EMBER_ARG(std::optional<ExpandingArrayDouble>, output_ratio) = std::nullopt;
  /// Samples in [0, 1) of shape [N, C, D] placing the windows (drawn from ember's default
  /// generator when undefined).
  EMBER_ARG(Tensor, _random_samples) = Tensor();
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

/// Options of LPPool1d/2d/3d: the norm_type-power mean, (sum x^p)^(1/p).
template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The power p.
  EMBER_ARG(double, norm_type);
  /// The window's size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The window's step (default: kernel_size).
  EMBER_ARG(ExpandingArray<D>, stride);
  /// Round the output size up instead of down.
  EMBER_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;
using LPPool3dOptions = LPPoolOptions<3>;

namespace functional {
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using FractionalMaxPool2dFuncOptions = FractionalMaxPool2dOptions;
using FractionalMaxPool3dFuncOptions = FractionalMaxPool3dOptions;
using LPPool1dFuncOptions = LPPool1dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;
using LPPool3dFuncOptions = LPPool3dOptions;

/// Options of F::max_unpool1d/2d/3d: MaxUnpoolOptions plus the output size (the spatial size, or
/// the full [N, C, *spatial] size) to pick among the sizes the pooling could have come from.
template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT: LibTorch converts implicitly
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The pooling's window size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The pooling's stride (default: kernel_size).
  EMBER_ARG(ExpandingArray<D>, stride);
  /// The pooling's padding.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// The output size; default (in - 1)·stride - 2·padding + kernel_size per dim.
  EMBER_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;
}  // namespace functional

}  // namespace ember::nn
