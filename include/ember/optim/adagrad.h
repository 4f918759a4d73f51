// Adagrad, LibTorch's torch::optim::Adagrad with Python's torch.optim.Adagrad update rule (1.13's
// single-tensor loop, dense gradients). Per parameter with a gradient g, at step t (from 1):
//   g = -g                                          if maximize
//   g = g + weight_decay * p                        if weight_decay != 0
//   sum = sum + g * g                               (sum starts at initial_accumulator_value)
//   p = p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps)
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Adagrad's options: AdagradOptions(0.01).lr_decay(1e-4).initial_accumulator_value(0.1).
struct EMBER_API AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;
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
EMBER_API bool operator==(const AdagradOptions& lhs, const AdagradOptions& rhs);

/// Adagrad's per-parameter state: the sum of squared gradients and the step count. As in
/// LibTorch and Python it exists from construction, the sum filled with the defaults'
/// initial_accumulator_value (a param group's own value is not used for it).
struct EMBER_API AdagradParamState : public OptimizerCloneableParamState<AdagradParamState> {
  EMBER_ARG(Tensor, sum);
  EMBER_ARG(int64_t, step) = 0;

 public:
  /// Writes / reads the state's counters and tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when the steps are equal and the sums are equal.
EMBER_API bool operator==(const AdagradParamState& lhs, const AdagradParamState& rhs);

/// The Adagrad optimizer. Construction checks the defaults (lr, lr_decay, weight_decay,
/// initial_accumulator_value and eps >= 0) and creates every parameter's state; step() checks
/// every group's options the same way.
class EMBER_API Adagrad : public Optimizer {
 public:
  explicit Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});

  /// One update of every parameter that has a gradient (the others are skipped). Runs under
  /// NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
