// Convolution modules (LibTorch's torch/nn/modules/conv.h), initialised as PyTorch initialises
// them:
//   nn::Conv2d conv(nn::Conv2dOptions(3, 16, 3).stride(1).padding(1));   // or nn::Conv2d(3, 16, 3)
//   Tensor y = conv(x);                                // x [N, 3, H, W] -> y [N, 16, H, W]
//   nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(16, 8, 2).stride(2));
//   Tensor z = up(y, std::vector<int64_t>{2 * H, 2 * W});   // forward(input, output_size)
#pragma once

#include <optional>
#include <vector>

#include "ember/core/ivalue.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/fused_forward.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// The base of every convolution module: weight [out, in/groups, k...] (transposed: [in,
/// out/groups, k...]) drawn by kaiming_uniform_(a = sqrt(5)), bias [out] uniform in
/// ±1/sqrt(fan_in), as PyTorch's _ConvNd.
template <size_t D, typename Derived>
class EMBER_API ConvNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvNdImpl(detail::ConvNdOptions<D> options_) : options(std::move(options_)) {}
  /// Checks the options and (re)creates weight and bias.
  void reset() override;
  /// Re-draws weight and bias as at construction.
  void reset_parameters();
  /// "ember::nn::Conv2d(3, 16, kernel_size=[3, 3], stride=[1, 1], ...)", as LibTorch prints.
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<D> options;
  Tensor weight;
  Tensor bias;
  /// Set by nn::utils::fuse_modules when this layer was fused (nn/fused_forward.h).
  detail::FusedForward _fused_forward;

 protected:
  /// F::pad's amounts for a non-zeros padding_mode, last dim first (PyTorch's
  /// _reversed_padding_repeated_twice).
  std::vector<int64_t> _reversed_padding_repeated_twice;
};

/// Applies a 1-D convolution over an input [N, C, L] or [C, L].
class EMBER_API Conv1dImpl : public ConvNdImpl<1, Conv1dImpl> {
 public:
  Conv1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv1dImpl(Conv1dOptions options_);
  /// input [N, in, L] or [in, L] -> [N, out, L_out].
  Tensor forward(const Tensor& input);
  /// The convolution with this module's options and the given weight (Python's _conv_forward).
  Tensor _conv_forward(const Tensor& input, const Tensor& weight);
  /// relu(_conv_forward(input, weight)), in one pass where the backend fuses it
  /// (nn::intrinsic::ConvReLU1d).
  Tensor _conv_relu_forward(const Tensor& input);
};
EMBER_MODULE(Conv1d);

/// Applies a 2-D convolution over an input [N, C, H, W] or [C, H, W].
class EMBER_API Conv2dImpl : public ConvNdImpl<2, Conv2dImpl> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv2dImpl(Conv2dOptions options_);
  /// input [N, in, H, W] or [in, H, W] -> [N, out, H_out, W_out]; channels-last stays so.
  Tensor forward(const Tensor& input);
  /// The convolution with this module's options and the given weight (Python's _conv_forward).
  Tensor _conv_forward(const Tensor& input, const Tensor& weight);
  /// relu(_conv_forward(input, weight)), in one pass where the backend fuses it
  /// (nn::intrinsic::ConvReLU2d).
  Tensor _conv_relu_forward(const Tensor& input);
};
EMBER_MODULE(Conv2d);

/// Applies a 3-D convolution over an input [N, C, D, H, W] or [C, D, H, W].
class EMBER_API Conv3dImpl : public ConvNdImpl<3, Conv3dImpl> {
 public:
  Conv3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv3dImpl(Conv3dOptions options_);
  /// input [N, in, D, H, W] or [in, D, H, W] -> [N, out, D_out, H_out, W_out].
  Tensor forward(const Tensor& input);
  /// The convolution with this module's options and the given weight (Python's _conv_forward).
  Tensor _conv_forward(const Tensor& input, const Tensor& weight);
  /// relu(_conv_forward(input, weight)), in one pass where the backend fuses it
  /// (nn::intrinsic::ConvReLU3d).
  Tensor _conv_relu_forward(const Tensor& input);
};
EMBER_MODULE(Conv3d);

/// The base of the transposed convolution modules.
template <size_t D, typename Derived>
class EMBER_API ConvTransposeNdImpl : public ConvNdImpl<D, Derived> {
 public:
  using ConvNdImpl<D, Derived>::ConvNdImpl;
  /// "ember::nn::ConvTranspose2d(16, 8, kernel_size=[2, 2], stride=[2, 2], ...)".
  void pretty_print(std::ostream& stream) const override;
  /// forward with 1 or 2 boxed arguments (input, and output_size as an int list or None), so a
  /// ConvTranspose in a Sequential or AnyModule keeps forward's default output_size (LibTorch's
  /// FORWARD_HAS_DEFAULT_ARGS).
  IValue forward_ivalues(std::vector<IValue> inputs);

 protected:
  /// The padding amounts (a transposed convolution's padding is never kSame/kValid).
  const ExpandingArray<D>& padding() const;
  /// The output_padding that makes the output `output_size` (the spatial sizes, or N and C
  /// too), or the options' output_padding when output_size is absent (PyTorch's
  /// _output_padding, with its errors).
  std::vector<int64_t> _output_padding(const Tensor& input,
                                       const std::optional<IntArrayRef>& output_size,
                                       const ExpandingArray<D>& stride,
                                       const ExpandingArray<D>& padding,
                                       const ExpandingArray<D>& kernel_size);
};

/// Applies a transposed 1-D convolution (the gradient of Conv1d w.r.t. its input).
class EMBER_API ConvTranspose1dImpl : public ConvTransposeNdImpl<1, ConvTranspose1dImpl> {
 public:
  ConvTranspose1dImpl(int64_t input_channels, int64_t output_channels,
                      ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(ConvTranspose1dOptions options_);
  /// input [N, in, L] or [in, L] -> [N, out, L_out]; output_size picks L_out among the sizes
  /// stride allows.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
};
EMBER_MODULE(ConvTranspose1d);

/// Applies a transposed 2-D convolution.
class EMBER_API ConvTranspose2dImpl : public ConvTransposeNdImpl<2, ConvTranspose2dImpl> {
 public:
  ConvTranspose2dImpl(int64_t input_channels, int64_t output_channels,
                      ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(ConvTranspose2dOptions options_);
  /// input [N, in, H, W] or [in, H, W] -> [N, out, H_out, W_out].
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
};
EMBER_MODULE(ConvTranspose2d);

/// Applies a transposed 3-D convolution.
class EMBER_API ConvTranspose3dImpl : public ConvTransposeNdImpl<3, ConvTranspose3dImpl> {
 public:
  ConvTranspose3dImpl(int64_t input_channels, int64_t output_channels,
                      ExpandingArray<3> kernel_size)
      : ConvTranspose3dImpl(ConvTranspose3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose3dImpl(ConvTranspose3dOptions options_);
  /// input [N, in, D, H, W] or [in, D, H, W] -> [N, out, D_out, H_out, W_out].
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
};
EMBER_MODULE(ConvTranspose3d);

// The six modules' bases are instantiated once, in src/nn/modules/conv.cpp.
extern template class ConvNdImpl<1, Conv1dImpl>;
extern template class ConvNdImpl<2, Conv2dImpl>;
extern template class ConvNdImpl<3, Conv3dImpl>;
extern template class ConvNdImpl<1, ConvTranspose1dImpl>;
extern template class ConvNdImpl<2, ConvTranspose2dImpl>;
extern template class ConvNdImpl<3, ConvTranspose3dImpl>;
extern template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
extern template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
extern template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

}  // namespace ember::nn
