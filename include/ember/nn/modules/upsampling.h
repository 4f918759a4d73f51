// Upsample (LibTorch's torch/nn/modules/upsampling.h):
//   nn::Upsample
//   up(nn::UpsampleOptions().scale_factor(std::vector<double>{2}).mode(ember::kNearest)); Tensor y
//   = up(x);   // [N, C, H, W] -> [N, C, 2H, 2W]
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/options/upsampling.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// Resizes its input with F::interpolate (no parameters, no buffers).
class EMBER_API UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {}) : options(options_) {}
  /// [N, C, *spatial] -> [N, C, *size] (or the spatial sizes times scale_factor).
  Tensor forward(const Tensor& input);
  /// "ember::nn::Upsample(scale_factor=[2, 2], mode=kNearest)".
  void pretty_print(std::ostream& stream) const override;
  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace ember::nn
