// F::pixel_shuffle, F::pixel_unshuffle, F::channel_shuffle, F::fold and F::unfold: options onto
// the ATen-style ops of src/ops/nn_pad_shuffle.cpp and src/ops/nn_pad_fold.cpp.
#include "ember/nn/functional/pixelshuffle.h"

#include "ember/nn/functional/fold.h"
#include "ember/ops/nn_pad.h"

namespace ember::nn::functional {

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return ember::pixel_shuffle(input, options.upscale_factor());
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return ember::pixel_unshuffle(input, options.downscale_factor());
}

Tensor channel_shuffle(const Tensor& input, const ChannelShuffleFuncOptions& options) {
  return ember::channel_shuffle(input, options.groups());
}

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  return ember::col2im(input, options.output_size(), options.kernel_size(), options.dilation(),
                       options.padding(), options.stride());
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  return ember::im2col(input, options.kernel_size(), options.dilation(), options.padding(),
                       options.stride());
}

}  // namespace ember::nn::functional
