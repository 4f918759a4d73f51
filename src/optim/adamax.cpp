#include "ember/optim/adamax.h"

#include <cmath>
#include <string>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

AdamaxOptions::AdamaxOptions(double lr) : lr_(lr) {}

bool operator==(const AdamaxOptions& lhs, const AdamaxOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.betas() == rhs.betas() && lhs.eps() == rhs.eps() &&
         lhs.weight_decay() == rhs.weight_decay() && lhs.maximize() == rhs.maximize();
}

bool operator==(const AdamaxParamState& lhs, const AdamaxParamState& rhs) {
  return lhs.step() == rhs.step() && detail::same_tensor_state(lhs.exp_avg(), rhs.exp_avg()) &&
         detail::same_tensor_state(lhs.exp_inf(), rhs.exp_inf());
}

Adamax::Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamaxOptions>(defaults)) {
  detail::check_adam_family_options("Adamax", defaults.lr(), defaults.eps(), defaults.betas(),
                                    defaults.weight_decay(), "defaults");
}

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions defaults)
    : Adamax(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
             std::move(defaults)) {}

// PyTorch 1.13's single-tensor loop, op for op. Python takes the infinity norm as amax over the
// two stacked candidates; the elementwise maximum is the same value without the copy.
Tensor Adamax::step(LossClosure closure) {
  NoGradGuard no_grad;
  const Tensor loss = detail::run_closure(closure);
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = detail::group_options<AdamaxOptions>(group, gi, "Adamax", "AdamaxOptions");
    detail::check_adam_family_options("Adamax", o.lr(), o.eps(), o.betas(), o.weight_decay(),
                                      "param group " + std::to_string(gi));
    const auto [beta1, beta2] = o.betas();
    // Parameters the fused kernel takes (src/optim/update_common.h) get the op chain below in
    // one pass each, all of the group in one call.
    detail::FusedBatch batch(OpId::adamax_update);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = detail::state_or_init<AdamaxParamState>(state_, p, [&](AdamaxParamState& f) {
        f.exp_avg(zeros_like(p));
        f.exp_inf(zeros_like(p));
      });
      s.step(s.step() + 1);
      const double bias_correction = 1 - std::pow(beta1, static_cast<double>(s.step()));
      if (OptimTensor* e = batch.try_add(p, p.grad(), {&s.exp_avg(), &s.exp_inf()})) {
        e->scalar[0] = -(o.lr() / bias_correction);
        continue;
      }
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
      s.exp_inf().mul_(beta2);
      s.exp_inf().copy_(maximum(s.exp_inf(), grad.abs().add_(o.eps())));
      p.addcdiv_(s.exp_avg(), s.exp_inf(), -(o.lr() / bias_correction));
    }
    AdamaxUpdateParams params;
    params.beta1 = beta1;
    params.one_minus_beta1 = 1 - beta1;
    params.beta2 = beta2;
    params.eps = o.eps();
    params.weight_decay = o.weight_decay();
    params.maximize = o.maximize();
    batch.run<OpId::adamax_update>(params);
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> Adamax::make_param_state() const {
  return std::make_unique<AdamaxParamState>();
}

void AdamaxOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_pair(archive, "betas", betas());
  detail::put_double(archive, "eps", eps());
  detail::put_double(archive, "weight_decay", weight_decay());
  detail::put_bool(archive, "maximize", maximize());
}

void AdamaxOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  betas(detail::get_pair(archive, "betas"));
  eps(detail::get_double(archive, "eps"));
  weight_decay(detail::get_double(archive, "weight_decay"));
  maximize(detail::get_bool(archive, "maximize"));
}

void AdamaxParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_int(archive, "step", step());
  detail::put_tensor(archive, "exp_avg", exp_avg());
  detail::put_tensor(archive, "exp_inf", exp_inf());
}

void AdamaxParamState::serialize(serialize::InputArchive& archive) {
  step(detail::get_int(archive, "step"));
  exp_avg(detail::get_tensor(archive, "exp_avg"));
  exp_inf(detail::get_tensor(archive, "exp_inf"));
}

}  // namespace ember::optim
