// AdamW (Loshchilov & Hutter), LibTorch's torch::optim::AdamW with Python's torch.optim.AdamW rule
// (1.13's single-tensor loop). Per parameter with a gradient g, at step t (counted from 1):
//   g = -g                                              if maximize
//   p = p * (1 - lr * weight_decay)                     (decoupled decay, before the moments)
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   v_max = max(v_max, v), v = v_max                    if amsgrad
//   p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// AdamW's options: AdamWOptions(1e-3).betas(std::make_tuple(0.9, 0.999)).amsgrad(true).
struct EMBER_API AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3);  // NOLINT: implicit, as LibTorch's
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(double, lr) = 1e-3;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 1e-2;
  EMBER_ARG(bool, amsgrad) = false;
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
EMBER_API bool operator==(const AdamWOptions& lhs, const AdamWOptions& rhs);

/// AdamW's per-parameter state: the step count and the moment estimates (max_exp_avg_sq only
/// with amsgrad).
struct EMBER_API AdamWParamState : public OptimizerCloneableParamState<AdamWParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);
  EMBER_ARG(Tensor, max_exp_avg_sq) = {};

 public:
  /// Writes / reads the state's counters and tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when the steps are equal and each tensor is undefined in both or equal in both.
EMBER_API bool operator==(const AdamWParamState& lhs, const AdamWParamState& rhs);

/// The AdamW optimizer. Construction checks the defaults (lr, eps, weight_decay >= 0, betas in
/// [0, 1)); step() checks every group's options the same way.
class EMBER_API AdamW : public Optimizer {
 public:
  explicit AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});

  /// One update of every parameter that has a gradient (the others are skipped). Runs under
  /// NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
