// What a layer that nn::utils::fuse_modules fused runs instead of itself. In Python, fuse_modules
// rebinds the parent's attributes (model.conv1 = ConvReLU2d, model.bn1 = Identity); a C++ model
// keeps its own holders of the old layers (conv1->forward(x) in its forward), which no registry
// edit can re-point. So the old layer objects are told instead: the first of a fused group
// computes the fused result from itself (a convolution with its ReLU as a post-op, a batch norm
// and its ReLU, ...) and the others pass their input through. The function takes the layer as
// an argument and captures nothing, so a clone() of the model carries a working copy. An empty
// FusedForward (every layer that was never fused) costs the layer's forward one test.
#pragma once

#include "ember/core/tensor.h"

namespace ember::nn {
class Module;
namespace detail {

class FusedForward {
 public:
  using Fn = Tensor (*)(Module& layer, const Tensor& input);

  /// Whether this layer was fused (its forward must return `operator()` instead).
  bool active() const noexcept { return fn_ != nullptr; }
  Tensor operator()(Module& layer, const Tensor& input) const { return fn_(layer, input); }
  void set(Fn fn) noexcept { fn_ = fn; }
  void clear() noexcept { fn_ = nullptr; }
  /// The later layers of a fused group.
  static Tensor identity(Module&, const Tensor& input) { return input; }

 private:
  Fn fn_ = nullptr;
};

}  // namespace detail
}  // namespace ember::nn
