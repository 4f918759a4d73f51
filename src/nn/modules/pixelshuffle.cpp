// PixelShuffle, PixelUnshuffle, ChannelShuffle, Fold and Unfold: forward through the functional
// forms and LibTorch's printing.
#include "ember/nn/modules/pixelshuffle.h"

#include <ostream>

#include "ember/nn/functional/fold.h"
#include "ember/nn/functional/pixelshuffle.h"
#include "ember/nn/modules/fold.h"

namespace ember::nn {
namespace F = functional;

Tensor PixelShuffleImpl::forward(const Tensor& input) { return F::pixel_shuffle(input, options); }
void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return F::pixel_unshuffle(input, options);
}
void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

Tensor ChannelShuffleImpl::forward(const Tensor& input) {
  return F::channel_shuffle(input, options);
}
void ChannelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ChannelShuffle(groups=" << options.groups() << ")";
}

Tensor FoldImpl::forward(const Tensor& input) { return F::fold(input, options); }
void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Fold(output_size=" << options.output_size()
         << ", kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

Tensor UnfoldImpl::forward(const Tensor& input) { return F::unfold(input, options); }
void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Unfold(kernel_size=" << options.kernel_size()
         << ", dilation=" << options.dilation() << ", padding=" << options.padding()
         << ", stride=" << options.stride() << ")";
}

}  // namespace ember::nn
