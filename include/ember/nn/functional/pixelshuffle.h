// F::pixel_shuffle and F::pixel_unshuffle (LibTorch's torch/nn/functional/pixelshuffle.h), and
// F::channel_shuffle (Python's F.channel_shuffle):
//   Tensor up = F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2));  // [N, 12, 4, 4] -> [N, 3, 8,
//   8]
// All are differentiable and keep a channels-last input's memory format.
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/pixelshuffle.h"

namespace ember::nn::functional {

/// [*, C·r², H, W] -> [*, C, H·r, W·r] with r = options.upscale_factor().
EMBER_API Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
/// [*, C, H·r, W·r] -> [*, C·r², H, W] with r = options.downscale_factor().
EMBER_API Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);
/// Interleaves the channels of [N, C, *] across options.groups() groups (ShuffleNet).
EMBER_API Tensor channel_shuffle(const Tensor& input, const ChannelShuffleFuncOptions& options);

}  // namespace ember::nn::functional
