#include "ember/optim/nadam.h"

#include <cmath>
#include <string>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

NAdamOptions::NAdamOptions(double lr) : lr_(lr) {}

bool operator==(const NAdamOptions& lhs, const NAdamOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.betas() == rhs.betas() && lhs.eps() == rhs.eps() &&
         lhs.weight_decay() == rhs.weight_decay() && lhs.momentum_decay() == rhs.momentum_decay();
}

bool operator==(const NAdamParamState& lhs, const NAdamParamState& rhs) {
  return lhs.step() == rhs.step() && lhs.mu_product() == rhs.mu_product() &&
         detail::same_tensor_state(lhs.exp_avg(), rhs.exp_avg()) &&
         detail::same_tensor_state(lhs.exp_avg_sq(), rhs.exp_avg_sq());
}

namespace {
void nadam_check_options(const NAdamOptions& o, const std::string& where) {
  detail::check_adam_family_options("NAdam", o.lr(), o.eps(), o.betas(), o.weight_decay(), where);
  EMBER_CHECK_VALUE(o.momentum_decay() >= 0,
                    "NAdam: Invalid momentum_decay value: {} ({}). Hint: momentum_decay must be "
                    ">= 0",
                    o.momentum_decay(), where);
}

// Python's mu_product is a float32 tensor and `mu_product * mu` rounds mu to float32 and the
// product to float32; the product of two floats is exact in double, so this is bit-identical.
double nadam_float_mul(double a, double b) {
  return static_cast<float>(static_cast<double>(static_cast<float>(a)) *
                            static_cast<double>(static_cast<float>(b)));
}
}  // namespace

NAdam::NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<NAdamOptions>(defaults)) {
  nadam_check_options(defaults, "defaults");
}

NAdam::NAdam(std::vector<Tensor> params, NAdamOptions defaults)
    : NAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

// PyTorch 1.13's single-tensor loop, op for op.
Tensor NAdam::step(LossClosure closure) {
  NoGradGuard no_grad;
  const Tensor loss = detail::run_closure(closure);
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = detail::group_options<NAdamOptions>(group, gi, "NAdam", "NAdamOptions");
    nadam_check_options(o, "param group " + std::to_string(gi));
    const auto [beta1, beta2] = o.betas();
    // Parameters the fused kernel takes (src/optim/update_common.h) get the op chain below in
    // one pass each, all of the group in one call.
    detail::FusedBatch batch(OpId::nadam_update);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = detail::state_or_init<NAdamParamState>(state_, p, [&](NAdamParamState& f) {
        f.exp_avg(zeros_like(p));
        f.exp_avg_sq(zeros_like(p));
      });
      Tensor grad = p.grad();
      s.step(s.step() + 1);
      const double step = static_cast<double>(s.step());
      const double bias_correction2 = 1 - std::pow(beta2, step);
      // The momentum schedule mu(t) and mu(t + 1).
      const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * o.momentum_decay()));
      const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay()));
      s.mu_product(nadam_float_mul(s.mu_product(), mu));
      const double mu_product_next = nadam_float_mul(nadam_float_mul(s.mu_product(), mu), mu_next);
      const double grad_step = -o.lr() * (1. - mu) / (1. - s.mu_product());
      const double avg_step = -o.lr() * mu_next / (1. - mu_product_next);
      if (OptimTensor* e = batch.try_add(p, grad, {&s.exp_avg(), &s.exp_avg_sq()})) {
        e->scalar[0] = bias_correction2;
        e->scalar[1] = grad_step;
        e->scalar[2] = avg_step;
        continue;
      }
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
      s.exp_avg_sq().mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      const Tensor denom = s.exp_avg_sq().div(bias_correction2).sqrt().add_(o.eps());
      p.addcdiv_(grad, denom, grad_step);
      p.addcdiv_(s.exp_avg(), denom, avg_step);
    }
    NadamUpdateParams params;
    params.beta1 = beta1;
    params.one_minus_beta1 = 1 - beta1;
    params.beta2 = beta2;
    params.one_minus_beta2 = 1 - beta2;
    params.eps = o.eps();
    params.weight_decay = o.weight_decay();
    batch.run<OpId::nadam_update>(params);
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> NAdam::make_param_state() const {
  return std::make_unique<NAdamParamState>();
}

void NAdamOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_pair(archive, "betas", betas());
  detail::put_double(archive, "eps", eps());
  detail::put_double(archive, "weight_decay", weight_decay());
  detail::put_double(archive, "momentum_decay", momentum_decay());
}

void NAdamOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  betas(detail::get_pair(archive, "betas"));
  eps(detail::get_double(archive, "eps"));
  weight_decay(detail::get_double(archive, "weight_decay"));
  momentum_decay(detail::get_double(archive, "momentum_decay"));
}

void NAdamParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_int(archive, "step", step());
  detail::put_double(archive, "mu_product", mu_product());
  detail::put_tensor(archive, "exp_avg", exp_avg());
  detail::put_tensor(archive, "exp_avg_sq", exp_avg_sq());
}

void NAdamParamState::serialize(serialize::InputArchive& archive) {
  step(detail::get_int(archive, "step"));
  mu_product(detail::get_double(archive, "mu_product"));
  exp_avg(detail::get_tensor(archive, "exp_avg"));
  exp_avg_sq(detail::get_tensor(archive, "exp_avg_sq"));
}

}  // namespace ember::optim
