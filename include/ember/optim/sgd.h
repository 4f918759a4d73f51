// Stochastic gradient descent with optional momentum, dampening, Nesterov momentum, weight decay
// and maximize: LibTorch's torch::optim::SGD, with Python's torch.optim.SGD update rule. Per
// parameter with a gradient g, in order:
//   g = -g                                       if maximize
//   g = g + weight_decay * p                     if weight_decay != 0
//   buf = g (first step), else buf = momentum * buf + (1 - dampening) * g     if momentum != 0
//   g = g + momentum * buf (nesterov), else g = buf                          if momentum != 0
//   p = p - lr * g
#pragma once

#include <memory>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// SGD's options: SGDOptions(0.1).momentum(0.9).nesterov(true).
struct EMBER_API SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr);
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  /// Ascend the objective instead (Python's maximize; LibTorch 1.13 lacks it).
  EMBER_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double value) override { lr(value); }
  /// Writes / reads every option under its name (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when every option is equal.
EMBER_API bool operator==(const SGDOptions& lhs, const SGDOptions& rhs);

/// SGD's per-parameter state: the momentum buffer (only with momentum != 0).
struct EMBER_API SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  EMBER_ARG(Tensor, momentum_buffer);

 public:
  /// Writes / reads the state's counters and tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when both buffers are undefined, or both are defined with equal sizes and values.
EMBER_API bool operator==(const SGDParamState& lhs, const SGDParamState& rhs);

/// The SGD optimizer. Construction checks the defaults (lr, momentum and weight_decay >= 0;
/// nesterov needs momentum > 0 and dampening == 0); step() checks every group's options the
/// same way, so a group given its own options or changed later cannot slip through.
class EMBER_API SGD : public Optimizer {
 public:
  explicit SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults);

  /// One update of every parameter that has a gradient (parameters whose grad is undefined are
  /// skipped). Runs under NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
