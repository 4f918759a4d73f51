// Options of PixelShuffle, PixelUnshuffle and ChannelShuffle and of their functional forms, as
// LibTorch's torch/nn/options/pixelshuffle.h (ChannelShuffle is Python's nn.ChannelShuffle):
//   nn::PixelShuffle up(nn::PixelShuffleOptions(2));
//   F::pixel_unshuffle(x, F::PixelUnshuffleFuncOptions(2));
#pragma once

#include <cstdint>

#include "ember/core/arg.h"

namespace ember::nn {

/// Options of PixelShuffle: [*, C·r², H, W] -> [*, C, H·r, W·r].
struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  /// r, the factor that multiplies height and width.
  EMBER_ARG(int64_t, upscale_factor);
};

/// Options of PixelUnshuffle: [*, C, H·r, W·r] -> [*, C·r², H, W].
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor)  // NOLINT
      : downscale_factor_(downscale_factor) {}
  /// r, the factor that divides height and width.
  EMBER_ARG(int64_t, downscale_factor);
};

/// Options of ChannelShuffle: the channels of [N, C, *] in `groups` groups are interleaved.
struct ChannelShuffleOptions {
  ChannelShuffleOptions(int64_t groups) : groups_(groups) {}  // NOLINT
  /// The number of groups; must divide C.
  EMBER_ARG(int64_t, groups);
};

namespace functional {
/// Options of F::pixel_shuffle.
using PixelShuffleFuncOptions = PixelShuffleOptions;
/// Options of F::pixel_unshuffle.
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
/// Options of F::channel_shuffle.
using ChannelShuffleFuncOptions = ChannelShuffleOptions;
}  // namespace functional

}  // namespace ember::nn
