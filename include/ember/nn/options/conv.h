// Options of the convolution modules and functionals, as LibTorch's torch/nn/options/conv.h:
//   nn::Conv2d conv(nn::Conv2dOptions(3, 16, 3).stride(2).padding(1).bias(false));
//   nn::Conv1d same(nn::Conv1dOptions(4, 4, 5).padding(ember::kSame));
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(1).padding(1));
//   nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(16, 8, 4).stride(2).padding(1));
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <variant>

#include "ember/core/arg.h"
#include "ember/core/expanding_array.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

namespace detail {

/// How a convolution pads its input: kZeros, kReflect, kReplicate or kCircular.
using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;

/// A convolution's padding: per-dim amounts, kValid (none) or kSame (output as large as the
/// input; stride 1 only).
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;

/// The options every convolution module stores (LibTorch's detail::ConvNdOptions): ConvOptions
/// and ConvTransposeOptions are converted to this.
template <size_t D>
struct ConvNdOptions {
  using padding_t = conv_padding_t<D>;
  ConvNdOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels),
        out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  /// Channels of the input.
  EMBER_ARG(int64_t, in_channels);
  /// Channels the convolution produces.
  EMBER_ARG(int64_t, out_channels);
  /// Size of the kernel.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// Stride of the kernel.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Padding: amounts per dim, kValid or kSame.
  EMBER_ARG(padding_t, padding) = 0;

 public:
  /// Padding from a braced list, {1, 2}.
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(IntArrayRef{il}); }
  /// Spacing between kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Whether this is a transposed convolution.
  EMBER_ARG(bool, transposed) = false;
  /// Extra size added to one side of a transposed convolution's output.
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  /// Number of blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
  /// Whether the layer learns an additive bias.
  EMBER_ARG(bool, bias) = true;
  /// kZeros, kReflect, kReplicate or kCircular.
  EMBER_ARG(conv_padding_mode_t, padding_mode) = ember::kZeros;
};

}  // namespace detail

/// Options of Conv1d/2d/3d.
template <size_t D>
struct ConvOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  using padding_t = detail::conv_padding_t<D>;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels),
        out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  /// Channels of the input.
  EMBER_ARG(int64_t, in_channels);
  /// Channels the convolution produces.
  EMBER_ARG(int64_t, out_channels);
  /// Size of the kernel.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// Stride of the kernel.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Padding: amounts per dim, kValid or kSame.
  EMBER_ARG(padding_t, padding) = 0;

 public:
  /// Padding from a braced list, {1, 2}.
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(IntArrayRef{il}); }
  /// Spacing between kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Number of blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
  /// Whether the layer learns an additive bias.
  EMBER_ARG(bool, bias) = true;
  /// kZeros, kReflect, kReplicate or kCircular.
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
};

/// Options of Conv1d.
using Conv1dOptions = ConvOptions<1>;
/// Options of Conv2d.
using Conv2dOptions = ConvOptions<2>;
/// Options of Conv3d.
using Conv3dOptions = ConvOptions<3>;

/// Options of ConvTranspose1d/2d/3d.
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels),
        out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  /// Channels of the input.
  EMBER_ARG(int64_t, in_channels);
  /// Channels the convolution produces.
  EMBER_ARG(int64_t, out_channels);
  /// Size of the kernel.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// Stride of the kernel.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// dilation·(kernel_size-1) - padding zeros are added to both sides of the input.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// Extra size added to one side of the output.
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  /// Number of blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
  /// Whether the layer learns an additive bias.
  EMBER_ARG(bool, bias) = true;
  /// Spacing between kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Only kZeros is supported by transposed convolutions (as PyTorch).
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
};

/// Options of ConvTranspose1d.
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
/// Options of ConvTranspose2d.
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
/// Options of ConvTranspose3d.
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {

/// Options of F::conv1d/2d/3d.
template <size_t D>
struct ConvFuncOptions {
  using padding_t = nn::detail::conv_padding_t<D>;
  /// Bias [out_channels] or undefined.
  EMBER_ARG(Tensor, bias) = Tensor();
  /// Stride of the kernel.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Padding: amounts per dim, kValid or kSame.
  EMBER_ARG(padding_t, padding) = 0;

 public:
  /// Padding from a braced list, {1, 2}.
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(IntArrayRef{il}); }
  /// Spacing between kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Number of blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
};

/// Options of F::conv1d.
using Conv1dFuncOptions = ConvFuncOptions<1>;
/// Options of F::conv2d.
using Conv2dFuncOptions = ConvFuncOptions<2>;
/// Options of F::conv3d.
using Conv3dFuncOptions = ConvFuncOptions<3>;

/// Options of F::conv_transpose1d/2d/3d.
template <size_t D>
struct ConvTransposeFuncOptions {
  /// Bias [out_channels] or undefined.
  EMBER_ARG(Tensor, bias) = Tensor();
  /// Stride of the kernel.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Padding removed from both sides of the output.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// Extra size added to one side of the output.
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  /// Number of blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
  /// Spacing between kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};

/// Options of F::conv_transpose1d.
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
/// Options of F::conv_transpose2d.
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
/// Options of F::conv_transpose3d.
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

}  // namespace functional

}  // namespace ember::nn
