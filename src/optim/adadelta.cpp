#include "ember/optim/adadelta.h"

#include <string>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

AdadeltaOptions::AdadeltaOptions(double lr) : lr_(lr) {}

bool operator==(const AdadeltaOptions& lhs, const AdadeltaOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.rho() == rhs.rho() && lhs.eps() == rhs.eps() &&
         lhs.weight_decay() == rhs.weight_decay() && lhs.maximize() == rhs.maximize();
}

bool operator==(const AdadeltaParamState& lhs, const AdadeltaParamState& rhs) {
  return lhs.step() == rhs.step() &&
         detail::same_tensor_state(lhs.square_avg(), rhs.square_avg()) &&
         detail::same_tensor_state(lhs.acc_delta(), rhs.acc_delta());
}

namespace {
// Python's checks, in its order; `where` is "defaults" or "param group 1".
void adadelta_check_options(const AdadeltaOptions& o, const std::string& where) {
  EMBER_CHECK_VALUE(o.lr() >= 0, "Adadelta: Invalid learning rate: {} ({}). Hint: lr must be >= 0",
                    o.lr(), where);
  EMBER_CHECK_VALUE(o.rho() >= 0 && o.rho() <= 1,
                    "Adadelta: Invalid rho value: {} ({}). Hint: rho must be in [0, 1]", o.rho(),
                    where);
  EMBER_CHECK_VALUE(o.eps() >= 0,
                    "Adadelta: Invalid epsilon value: {} ({}). Hint: eps must be >= 0", o.eps(),
                    where);
  EMBER_CHECK_VALUE(
      o.weight_decay() >= 0,
      "Adadelta: Invalid weight_decay value: {} ({}). Hint: weight_decay must be >= 0",
      o.weight_decay(), where);
}
}  // namespace

Adadelta::Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdadeltaOptions>(defaults)) {
  adadelta_check_options(defaults, "defaults");
}

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults)
    : Adadelta(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
               std::move(defaults)) {}

// PyTorch 1.13's single-tensor loop, op for op.
Tensor Adadelta::step(LossClosure closure) {
  NoGradGuard no_grad;
  const Tensor loss = detail::run_closure(closure);
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o =
        detail::group_options<AdadeltaOptions>(group, gi, "Adadelta", "AdadeltaOptions");
    adadelta_check_options(o, "param group " + std::to_string(gi));
    // Parameters the fused kernel takes (src/optim/update_common.h) get the op chain below in
    // one pass each, all of the group in one call.
    detail::FusedBatch batch(OpId::adadelta_update);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = detail::state_or_init<AdadeltaParamState>(state_, p, [&](AdadeltaParamState& f) {
        f.square_avg(zeros_like(p));
        f.acc_delta(zeros_like(p));
      });
      s.step(s.step() + 1);
      if (batch.try_add(p, p.grad(), {&s.square_avg(), &s.acc_delta()})) continue;
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.square_avg().mul_(o.rho()).addcmul_(grad, grad, 1 - o.rho());
      const Tensor std = s.square_avg().add(o.eps()).sqrt_();
      const Tensor delta = s.acc_delta().add(o.eps()).sqrt_().div_(std).mul_(grad);
      s.acc_delta().mul_(o.rho()).addcmul_(delta, delta, 1 - o.rho());
      p.add_(delta, -o.lr());
    }
    AdadeltaUpdateParams params;
    params.lr = o.lr();
    params.rho = o.rho();
    params.one_minus_rho = 1 - o.rho();
    params.eps = o.eps();
    params.weight_decay = o.weight_decay();
    params.maximize = o.maximize();
    batch.run<OpId::adadelta_update>(params);
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> Adadelta::make_param_state() const {
  return std::make_unique<AdadeltaParamState>();
}

void AdadeltaOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_double(archive, "rho", rho());
  detail::put_double(archive, "eps", eps());
  detail::put_double(archive, "weight_decay", weight_decay());
  detail::put_bool(archive, "maximize", maximize());
}

void AdadeltaOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  rho(detail::get_double(archive, "rho"));
  eps(detail::get_double(archive, "eps"));
  weight_decay(detail::get_double(archive, "weight_decay"));
  maximize(detail::get_bool(archive, "maximize"));
}

void AdadeltaParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_int(archive, "step", step());
  detail::put_tensor(archive, "square_avg", square_avg());
  detail::put_tensor(archive, "acc_delta", acc_delta());
}

void AdadeltaParamState::serialize(serialize::InputArchive& archive) {
  step(detail::get_int(archive, "step"));
  square_avg(detail::get_tensor(archive, "square_avg"));
  acc_delta(detail::get_tensor(archive, "acc_delta"));
}

}  // namespace ember::optim
