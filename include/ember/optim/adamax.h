// Adamax (Kingma & Ba, the infinity-norm variant of Adam) with Python's torch.optim.Adamax update
// rule (1.13's single-tensor loop; LibTorch 1.13 has no Adamax). Per parameter with a gradient g,
// at step t (counted from 1):
//   g = -g                                                   if maximize
//   g = g + weight_decay * p                                 if weight_decay != 0
//   m = beta1 * m + (1 - beta1) * g
//   u = max(beta2 * u, |g| + eps)
//   p = p - lr / (1 - beta1^t) * m / u
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Adamax's options: AdamaxOptions(2e-3).betas(std::make_tuple(0.9, 0.999)).eps(1e-8).
struct EMBER_API AdamaxOptions : public OptimizerCloneableOptions<AdamaxOptions> {
  AdamaxOptions(double lr = 2e-3);  // NOLINT: implicit, as LibTorch's options
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(double, lr) = 2e-3;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
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
EMBER_API bool operator==(const AdamaxOptions& lhs, const AdamaxOptions& rhs);

/// Adamax's per-parameter state: the step count, the first moment (exp_avg) and the
/// exponentially weighted infinity norm (exp_inf).
struct EMBER_API AdamaxParamState : public OptimizerCloneableParamState<AdamaxParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_inf);

 public:
  /// Writes / reads the step and the tensors (Optimizer::save / load).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when the steps are equal and each tensor is undefined in both or equal in both.
EMBER_API bool operator==(const AdamaxParamState& lhs, const AdamaxParamState& rhs);

/// The Adamax optimizer. Construction checks the defaults (lr, eps, weight_decay >= 0, betas in
/// [0, 1)); step() checks every group's options the same way.
class EMBER_API Adamax : public Optimizer {
 public:
  explicit Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults = {});
  explicit Adamax(std::vector<Tensor> params, AdamaxOptions defaults = {});

  /// One update of every parameter that has a gradient (the others are skipped). Runs under
  /// NoGradGuard with in-place tensor ops.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
