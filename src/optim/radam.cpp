#include "ember/optim/radam.h"

#include <cmath>
#include <string>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

RAdamOptions::RAdamOptions(double lr) : lr_(lr) {}

bool operator==(const RAdamOptions& lhs, const RAdamOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.betas() == rhs.betas() && lhs.eps() == rhs.eps() &&
         lhs.weight_decay() == rhs.weight_decay();
}

bool operator==(const RAdamParamState& lhs, const RAdamParamState& rhs) {
  return lhs.step() == rhs.step() && detail::same_tensor_state(lhs.exp_avg(), rhs.exp_avg()) &&
         detail::same_tensor_state(lhs.exp_avg_sq(), rhs.exp_avg_sq());
}

RAdam::RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RAdamOptions>(defaults)) {
  detail::check_adam_family_options("RAdam", defaults.lr(), defaults.eps(), defaults.betas(),
                                    defaults.weight_decay(), "defaults");
}

RAdam::RAdam(std::vector<Tensor> params, RAdamOptions defaults)
    : RAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

// PyTorch 1.13's single-tensor loop, op for op (Python's `scalar / tensor` is
// tensor.reciprocal() * scalar, so it is written that way here).
Tensor RAdam::step(LossClosure closure) {
  NoGradGuard no_grad;
  const Tensor loss = detail::run_closure(closure);
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = detail::group_options<RAdamOptions>(group, gi, "RAdam", "RAdamOptions");
    detail::check_adam_family_options("RAdam", o.lr(), o.eps(), o.betas(), o.weight_decay(),
                                      "param group " + std::to_string(gi));
    const auto [beta1, beta2] = o.betas();
    // Parameters the fused kernel takes (src/optim/update_common.h) get the op chain below in
    // one pass each, all of the group in one call.
    detail::FusedBatch batch(OpId::radam_update);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = detail::state_or_init<RAdamParamState>(state_, p, [&](RAdamParamState& f) {
        f.exp_avg(zeros_like(p));
        f.exp_avg_sq(zeros_like(p));
      });
      Tensor grad = p.grad();
      s.step(s.step() + 1);
      const double step = static_cast<double>(s.step());
      const double bias_correction1 = 1 - std::pow(beta1, step);
      const double bias_correction2 = 1 - std::pow(beta2, step);
      // The maximum length of the approximated SMA, and its length at this step.
      const double rho_inf = 2 / (1 - beta2) - 1;
      const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
      // When the variance is tractable, the rectification of the adaptive learning rate.
      const double rect = rho_t > 5. ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                                 ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                                     : 0.;
      if (OptimTensor* e = batch.try_add(p, grad, {&s.exp_avg(), &s.exp_avg_sq()})) {
        e->scalar[0] = bias_correction1;
        e->scalar[1] = std::sqrt(bias_correction2);
        e->scalar[2] = rect;
        e->scalar[3] = rho_t > 5. ? 1. : 0.;
        continue;
      }
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
      s.exp_avg_sq().mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      const Tensor bias_corrected_exp_avg = s.exp_avg().div(bias_correction1);
      if (rho_t > 5.) {
        const Tensor adaptive_lr =
            s.exp_avg_sq().sqrt().add_(o.eps()).reciprocal().mul_(std::sqrt(bias_correction2));
        p.add_(bias_corrected_exp_avg.mul(o.lr()).mul_(adaptive_lr).mul_(rect), -1.0);
      } else {
        p.add_(bias_corrected_exp_avg.mul(o.lr()), -1.0);
      }
    }
    RadamUpdateParams params;
    params.lr = o.lr();
    params.beta1 = beta1;
    params.one_minus_beta1 = 1 - beta1;
    params.beta2 = beta2;
    params.one_minus_beta2 = 1 - beta2;
    params.eps = o.eps();
    params.weight_decay = o.weight_decay();
    batch.run<OpId::radam_update>(params);
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> RAdam::make_param_state() const {
  return std::make_unique<RAdamParamState>();
}

void RAdamOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_pair(archive, "betas", betas());
  detail::put_double(archive, "eps", eps());
  detail::put_double(archive, "weight_decay", weight_decay());
}

void RAdamOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  betas(detail::get_pair(archive, "betas"));
  eps(detail::get_double(archive, "eps"));
  weight_decay(detail::get_double(archive, "weight_decay"));
}

void RAdamParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_int(archive, "step", step());
  detail::put_tensor(archive, "exp_avg", exp_avg());
  detail::put_tensor(archive, "exp_avg_sq", exp_avg_sq());
}

void RAdamParamState::serialize(serialize::InputArchive& archive) {
  step(detail::get_int(archive, "step"));
  exp_avg(detail::get_tensor(archive, "exp_avg"));
  exp_avg_sq(detail::get_tensor(archive, "exp_avg_sq"));
}

}  // namespace ember::optim
