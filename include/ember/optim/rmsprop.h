// RMSprop, LibTorch's torch::optim::RMSprop with Python's torch.optim.RMSprop update rule (1.13's
// single-tensor loop). Per parameter with a gradient g:
//   g = -g                                          if maximize
//   g = g + weight_decay * p                        if weight_decay != 0
//   v = alpha * v + (1 - alpha) * g * g
//   avg = sqrt(v - m * m) + eps, m = alpha * m + (1 - alpha) * g     if centered
//   avg = sqrt(v) + eps                             otherwise
//   buf = momentum * buf + g / avg, p = p - lr * buf                 if momentum > 0
//   p = p - lr * g / avg                            otherwise
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// RMSprop's options: RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).
struct EMBER_API RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;
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
EMBER_API bool operator==(const RMSpropOptions& lhs, const RMSpropOptions& rhs);

/// RMSprop's per-parameter state: the step count, the running mean of squares, and the momentum
/// buffer and running mean (only with momentum > 0 and centered).
struct EMBER_API RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, momentum_buffer) = {};
  EMBER_ARG(Tensor, grad_avg) = {};

 public:
  /// Writes / reads the state's counters and tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when the steps are equal and each tensor is undefined in both or equal in both.
EMBER_API bool operator==(const RMSpropParamState& lhs, const RMSpropParamState& rhs);

/// The RMSprop optimizer. Construction checks the defaults (lr, eps, momentum, weight_decay and
/// alpha >= 0); step() checks every group's options the same way.
class EMBER_API RMSprop : public Optimizer {
 public:
  explicit RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});

  /// One update of every parameter that has a gradient (the others are skipped). Runs under
  /// NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
