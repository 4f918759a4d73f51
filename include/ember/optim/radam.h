// RAdam (Liu et al. 2019: Adam with a rectified adaptive learning rate) with Python's
// torch.optim.RAdam update rule (1.13's single-tensor loop; LibTorch 1.13 has no RAdam). Per
// parameter with a gradient g, at step t (counted from 1):
//   g = g + weight_decay * p                                 if weight_decay != 0
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   rho_inf = 2 / (1 - beta2) - 1,  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
//   p = p - lr * m / (1 - beta1^t) * r(t) * sqrt(1 - beta2^t) / (sqrt(v) + eps)   if rho_t > 5
//   p = p - lr * m / (1 - beta1^t)                                                otherwise
// with the rectification r(t) = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2)
// rho_t)). 1.13's RAdam has no maximize.
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// RAdam's options: RAdamOptions(1e-3).betas(std::make_tuple(0.9, 0.999)).weight_decay(1e-4).
struct EMBER_API RAdamOptions : public OptimizerCloneableOptions<RAdamOptions> {
  RAdamOptions(double lr = 1e-3);  // NOLINT: implicit, as LibTorch's options
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(double, lr) = 1e-3;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double value) override { lr(value); }
  /// Writes / reads every option under its name (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when every option is equal.
EMBER_API bool operator==(const RAdamOptions& lhs, const RAdamOptions& rhs);

/// RAdam's per-parameter state: the step count and the moment estimates.
struct EMBER_API RAdamParamState : public OptimizerCloneableParamState<RAdamParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);

 public:
  /// Writes / reads the step and the tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when the steps are equal and each tensor is undefined in both or equal in both.
EMBER_API bool operator==(const RAdamParamState& lhs, const RAdamParamState& rhs);

/// The RAdam optimizer. Construction checks the defaults (lr, eps, weight_decay >= 0, betas in
/// [0, 1)); step() checks every group's options the same way.
class EMBER_API RAdam : public Optimizer {
 public:
  explicit RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults = {});
  explicit RAdam(std::vector<Tensor> params, RAdamOptions defaults = {});

  /// One update of every parameter that has a gradient (the others are skipped). Runs under
  /// NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
