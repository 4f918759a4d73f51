#include "ember/optim/adagrad.h"

#include <string>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

bool operator==(const AdagradOptions& lhs, const AdagradOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.lr_decay() == rhs.lr_decay() &&
         lhs.weight_decay() == rhs.weight_decay() &&
         lhs.initial_accumulator_value() == rhs.initial_accumulator_value() &&
         lhs.eps() == rhs.eps() && lhs.maximize() == rhs.maximize();
}

bool operator==(const AdagradParamState& lhs, const AdagradParamState& rhs) {
  return lhs.step() == rhs.step() && detail::same_tensor_state(lhs.sum(), rhs.sum());
}

namespace {
// Python's checks, in its order; `where` is "defaults" or "param group 1".
void check_options(const AdagradOptions& o, const std::string& where) {
  EMBER_CHECK_VALUE(o.lr() >= 0, "Adagrad: Invalid learning rate: {} ({}). Hint: lr must be >= 0",
                    o.lr(), where);
  EMBER_CHECK_VALUE(o.lr_decay() >= 0,
                    "Adagrad: Invalid lr_decay value: {} ({}). Hint: lr_decay must be >= 0",
                    o.lr_decay(), where);
  EMBER_CHECK_VALUE(o.weight_decay() >= 0,
                    "Adagrad: Invalid weight_decay value: {} ({}). Hint: weight_decay must be >= 0",
                    o.weight_decay(), where);
  EMBER_CHECK_VALUE(o.initial_accumulator_value() >= 0,
                    "Adagrad: Invalid initial_accumulator_value value: {} ({}). Hint: it must be "
                    ">= 0",
                    o.initial_accumulator_value(), where);
  EMBER_CHECK_VALUE(o.eps() >= 0, "Adagrad: Invalid epsilon value: {} ({}). Hint: eps must be >= 0",
                    o.eps(), where);
}

AdagradParamState& state_of(Optimizer::StateMap& states, const Tensor& p, const AdagradOptions& o) {
  auto it = states.find(p.unsafeGetTensorImpl());
  if (it == states.end()) {
    auto fresh = std::make_unique<AdagradParamState>();
    fresh->sum(full_like(p, o.initial_accumulator_value()));
    it = states.emplace(p.unsafeGetTensorImpl(), std::move(fresh)).first;
  }
  return static_cast<AdagradParamState&>(*it->second);
}
}  // namespace

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  check_options(defaults, "defaults");
  // The state exists from the start, its sum filled with the defaults' initial_accumulator_value
  // whatever a group says, as in LibTorch and Python. A group added later gets its state at its
  // first step, from its own options (LibTorch and Python fail there).
  for (const auto& group : param_groups_)
    for (const Tensor& p : group.params()) state_of(state_, p, defaults);
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

// PyTorch 1.13's single-tensor loop (dense gradients), op for op.
Tensor Adagrad::step(LossClosure closure) {
  NoGradGuard no_grad;
  const Tensor loss = detail::run_closure(closure);
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = detail::group_options<AdagradOptions>(group, gi, "Adagrad", "AdagradOptions");
    check_options(o, "param group " + std::to_string(gi));
    // Parameters the fused kernel takes (src/optim/update_common.h) get the op chain below in
    // one pass each, all of the group in one call.
    detail::FusedBatch batch(OpId::adagrad_update);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      AdagradParamState& s = state_of(state_, p, o);
      s.step(s.step() + 1);
      const double clr = o.lr() / (1 + static_cast<double>(s.step() - 1) * o.lr_decay());
      if (OptimTensor* e = batch.try_add(p, p.grad(), {&s.sum()})) {
        e->scalar[0] = -clr;
        continue;
      }
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.sum().addcmul_(grad, grad, 1);
      const Tensor std = s.sum().sqrt().add_(o.eps());
      p.addcdiv_(grad, std, -clr);
    }
    AdagradUpdateParams params;
    params.eps = o.eps();
    params.weight_decay = o.weight_decay();
    params.maximize = o.maximize();
    batch.run<OpId::adagrad_update>(params);
  }
  return loss;
}

void AdagradOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_double(archive, "lr_decay", lr_decay());
  detail::put_double(archive, "weight_decay", weight_decay());
  detail::put_double(archive, "initial_accumulator_value", initial_accumulator_value());
  detail::put_double(archive, "eps", eps());
  detail::put_bool(archive, "maximize", maximize());
}

void AdagradOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  lr_decay(detail::get_double(archive, "lr_decay"));
  weight_decay(detail::get_double(archive, "weight_decay"));
  initial_accumulator_value(detail::get_double(archive, "initial_accumulator_value"));
  eps(detail::get_double(archive, "eps"));
  maximize(detail::get_bool(archive, "maximize"));
}

void AdagradParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_int(archive, "step", step());
  detail::put_tensor(archive, "sum", sum());
}

void AdagradParamState::serialize(serialize::InputArchive& archive) {
  step(detail::get_int(archive, "step"));
  sum(detail::get_tensor(archive, "sum"));
}

std::unique_ptr<OptimizerParamState> Adagrad::make_param_state() const {
  return std::make_unique<AdagradParamState>();
}

}  // namespace ember::optim
