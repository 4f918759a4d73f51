// What the optimizers' step() loops share (src/optim/*.cpp). Private to the library.
#pragma once

#include <memory>
#include <string>
#include <tuple>

#include "ember/autograd/grad_mode.h"
#include "ember/optim/optimizer.h"
#include "src/core/check.h"

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

/// The checks Python's Adam family (Adamax, NAdam, RAdam) makes, in its order and with its
/// messages; `name` is the optimizer, `where` says which options ("defaults", "param group 1").
inline void check_adam_family_options(const char* name, double lr, double eps,
                                      const std::tuple<double, double>& betas, double weight_decay,
                                      const std::string& where) {
  const auto [beta1, beta2] = betas;
  EMBER_CHECK_VALUE(lr >= 0, "{}: Invalid learning rate: {} ({}). Hint: lr must be >= 0", name, lr,
                    where);
  EMBER_CHECK_VALUE(eps >= 0, "{}: Invalid epsilon value: {} ({}). Hint: eps must be >= 0", name,
                    eps, where);
  EMBER_CHECK_VALUE(beta1 >= 0 && beta1 < 1,
                    "{}: Invalid beta parameter at index 0: {} ({}). Hint: betas must be in [0, 1)",
                    name, beta1, where);
  EMBER_CHECK_VALUE(beta2 >= 0 && beta2 < 1,
                    "{}: Invalid beta parameter at index 1: {} ({}). Hint: betas must be in [0, 1)",
                    name, beta2, where);
  EMBER_CHECK_VALUE(weight_decay >= 0,
                    "{}: Invalid weight_decay value: {} ({}). Hint: weight_decay must be >= 0",
                    name, weight_decay, where);
}

/// The state of `p` as State, made by `init` (State&) when p has none yet.
template <class State, class Init>
State& state_or_init(Optimizer::StateMap& states, const Tensor& p, Init&& init) {
  auto it = states.find(p.unsafeGetTensorImpl());
  if (it == states.end()) {
    auto fresh = std::make_unique<State>();
    init(*fresh);
    it = states.emplace(p.unsafeGetTensorImpl(), std::move(fresh)).first;
  }
  return static_cast<State&>(*it->second);
}

}  // namespace ember::optim::detail
