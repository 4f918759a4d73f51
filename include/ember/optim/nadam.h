// NAdam (Dozat 2016: Adam with Nesterov momentum) with Python's torch.optim.NAdam update rule
// (1.13's single-tensor loop; LibTorch 1.13 has no NAdam). Per parameter with a gradient g, at
// step t (counted from 1), with mu(t) = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)):
//   g = g + weight_decay * p                                 if weight_decay != 0
//   mu_product = mu_product * mu(t)                          (starts at 1)
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   denom = sqrt(v / (1 - beta2^t)) + eps
//   p = p - lr * (1 - mu(t)) / (1 - mu_product) * g / denom
//   p = p - lr * mu(t+1) / (1 - mu_product * mu(t+1)) * m / denom
// 1.13's NAdam has no maximize.
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// NAdam's options: NAdamOptions(2e-3).betas(std::make_tuple(0.9, 0.999)).momentum_decay(4e-3).
struct EMBER_API NAdamOptions : public OptimizerCloneableOptions<NAdamOptions> {
  NAdamOptions(double lr = 2e-3);  // NOLINT: implicit, as LibTorch's options
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(double, lr) = 2e-3;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum_decay) = 4e-3;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double value) override { lr(value); }
  /// Writes / reads every option under its name (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when every option is equal.
EMBER_API bool operator==(const NAdamOptions& lhs, const NAdamOptions& rhs);

/// NAdam's per-parameter state: the step count, the product of the momentum schedule so far
/// (mu_product; Python keeps it in a float32 tensor, so it is rounded to float32 after every
/// step here too, whatever the parameter's dtype) and the moment estimates.
struct EMBER_API NAdamParamState : public OptimizerCloneableParamState<NAdamParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(double, mu_product) = 1.0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);

 public:
  /// Writes / reads the step, mu_product and the tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when the steps and mu_products are equal and each tensor is undefined in both or equal
/// in both.
EMBER_API bool operator==(const NAdamParamState& lhs, const NAdamParamState& rhs);

/// The NAdam optimizer. Construction checks the defaults (lr, eps, weight_decay,
/// momentum_decay >= 0, betas in [0, 1)); step() checks every group's options the same way.
class EMBER_API NAdam : public Optimizer {
 public:
  explicit NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults = {});
  explicit NAdam(std::vector<Tensor> params, NAdamOptions defaults = {});

  /// One update of every parameter that has a gradient (the others are skipped). Runs under
  /// NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
