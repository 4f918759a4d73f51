// Adadelta (Zeiler 2012) with Python's torch.optim.Adadelta update rule (1.13's single-tensor
// loop; LibTorch 1.13 has no Adadelta). Per parameter with a gradient g:
//   g = -g                                                   if maximize
//   g = g + weight_decay * p                                 if weight_decay != 0
//   v = rho * v + (1 - rho) * g * g
//   delta = sqrt(u + eps) / sqrt(v + eps) * g
//   u = rho * u + (1 - rho) * delta * delta
//   p = p - lr * delta
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Adadelta's options: AdadeltaOptions(1.0).rho(0.95).eps(1e-6).weight_decay(1e-4).
struct EMBER_API AdadeltaOptions : public OptimizerCloneableOptions<AdadeltaOptions> {
  AdadeltaOptions(double lr = 1.0);  // NOLINT: implicit, as LibTorch's options
  EMBER_ARG(double, lr) = 1.0;
  EMBER_ARG(double, rho) = 0.9;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(double, weight_decay) = 0;
  /// Ascend the objective instead (Python's maximize).
  EMBER_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double value) override { lr(value); }
  /// Writes / reads every option under its name (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when every option is equal.
EMBER_API bool operator==(const AdadeltaOptions& lhs, const AdadeltaOptions& rhs);

/// Adadelta's per-parameter state: the step count and the running means of squared gradients
/// (square_avg) and of squared updates (acc_delta).
struct EMBER_API AdadeltaParamState : public OptimizerCloneableParamState<AdadeltaParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, acc_delta);

 public:
  /// Writes / reads the step and the tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when the steps are equal and each tensor is undefined in both or equal in both.
EMBER_API bool operator==(const AdadeltaParamState& lhs, const AdadeltaParamState& rhs);

/// The Adadelta optimizer. Construction checks the defaults (lr, eps, weight_decay >= 0, rho in
/// [0, 1]); step() checks every group's options the same way.
class EMBER_API Adadelta : public Optimizer {
 public:
  explicit Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults = {});
  explicit Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults = {});

  /// One update of every parameter that has a gradient (the others are skipped). Runs under
  /// NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
