// What the optimizers' step() loops share (src/optim/*.cpp). Private to the library.
#pragma once

#include "ember/autograd/grad_mode.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

/// Runs the closure (if any) with grad mode on, as step(closure) must, and returns its loss.
inline Tensor run_closure(const Optimizer::LossClosure& closure) {
  if (!closure) return Tensor();
  AutoGradMode enable_grad(true);  // the closure runs forward and backward
  return closure();
}

/// State tensors compare equal when both are undefined, or both defined with equal values.
inline bool same_tensor_state(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return a.sizes() == b.sizes() && a.equal(b);
}

/// The group's options as Options, or an Error naming the optimizer and the group.
template <class Options>
const Options& group_options(const OptimizerParamGroup& group, size_t index, const char* name,
                             const char* options_name) {
  const auto* options = dynamic_cast<const Options*>(&group.options());
  EMBER_CHECK(options != nullptr,
              "{}::step: param group {} does not hold {}. Hint: give {}'s param groups {} (or "
              "none, to use the defaults)",
              name, index, options_name, name, options_name);
  return *options;
}

}  // namespace ember::optim::detail
