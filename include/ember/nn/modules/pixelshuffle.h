// PixelShuffle and PixelUnshuffle (LibTorch's torch/nn/modules/pixelshuffle.h) and ChannelShuffle
// (Python's nn.ChannelShuffle): parameter-free modules over the functional forms.
//   nn::PixelShuffle up(nn::PixelShuffleOptions(2));   // [N, 12, 4, 4] -> [N, 3, 8, 8]
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/options/pixelshuffle.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// [*, C·r², H, W] -> [*, C, H·r, W·r].
class EMBER_API PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

/// [*, C, H·r, W·r] -> [*, C·r², H, W].
class EMBER_API PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

/// Interleaves the channels of [N, C, *] across `groups` groups.
class EMBER_API ChannelShuffleImpl : public Cloneable<ChannelShuffleImpl> {
 public:
  explicit ChannelShuffleImpl(const ChannelShuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  ChannelShuffleOptions options;
};
EMBER_MODULE(ChannelShuffle);

}  // namespace ember::nn
