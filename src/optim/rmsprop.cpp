#include "ember/optim/rmsprop.h"

#include <string>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

bool operator==(const RMSpropOptions& lhs, const RMSpropOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.alpha() == rhs.alpha() && lhs.eps() == rhs.eps() &&
         lhs.weight_decay() == rhs.weight_decay() && lhs.momentum() == rhs.momentum() &&
         lhs.centered() == rhs.centered() && lhs.maximize() == rhs.maximize();
}

bool operator==(const RMSpropParamState& lhs, const RMSpropParamState& rhs) {
  return lhs.step() == rhs.step() &&
         detail::same_tensor_state(lhs.square_avg(), rhs.square_avg()) &&
         detail::same_tensor_state(lhs.momentum_buffer(), rhs.momentum_buffer()) &&
         detail::same_tensor_state(lhs.grad_avg(), rhs.grad_avg());
}

namespace {
// Python's checks, in its order; `where` is "defaults" or "param group 1".
void check_options(const RMSpropOptions& o, const std::string& where) {
  EMBER_CHECK_VALUE(o.lr() >= 0, "RMSprop: Invalid learning rate: {} ({}). Hint: lr must be >= 0",
                    o.lr(), where);
  EMBER_CHECK_VALUE(o.eps() >= 0, "RMSprop: Invalid epsilon value: {} ({}). Hint: eps must be >= 0",
                    o.eps(), where);
  EMBER_CHECK_VALUE(o.momentum() >= 0,
                    "RMSprop: Invalid momentum value: {} ({}). Hint: momentum must be >= 0",
                    o.momentum(), where);
  EMBER_CHECK_VALUE(o.weight_decay() >= 0,
                    "RMSprop: Invalid weight_decay value: {} ({}). Hint: weight_decay must be >= 0",
                    o.weight_decay(), where);
  EMBER_CHECK_VALUE(o.alpha() >= 0,
                    "RMSprop: Invalid alpha value: {} ({}). Hint: alpha must be >= 0", o.alpha(),
                    where);
}
}  // namespace

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {
  check_options(defaults, "defaults");
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

// PyTorch 1.13's single-tensor loop, op for op.
Tensor RMSprop::step(LossClosure closure) {
  NoGradGuard no_grad;
  const Tensor loss = detail::run_closure(closure);
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = detail::group_options<RMSpropOptions>(group, gi, "RMSprop", "RMSpropOptions");
    check_options(o, "param group " + std::to_string(gi));
    // Parameters the fused kernel takes (src/optim/update_common.h) get the op chain below in
    // one pass each, all of the group in one call.
    detail::FusedBatch batch(OpId::rmsprop_update);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it == state_.end()) {
        auto fresh = std::make_unique<RMSpropParamState>();
        fresh->square_avg(zeros_like(p));
        it = state_.emplace(p.unsafeGetTensorImpl(), std::move(fresh)).first;
      }
      auto& s = static_cast<RMSpropParamState&>(*it->second);
      // Buffers a group gains later (momentum or centered switched on) start at zero.
      if (o.momentum() > 0 && !s.momentum_buffer().defined()) s.momentum_buffer(zeros_like(p));
      if (o.centered() && !s.grad_avg().defined()) s.grad_avg(zeros_like(p));
      s.step(s.step() + 1);
      if (batch.try_add(p, p.grad(),
                        {&s.square_avg(), o.centered() ? &s.grad_avg() : nullptr,
                         o.momentum() > 0 ? &s.momentum_buffer() : nullptr}))
        continue;
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.square_avg().mul_(o.alpha()).addcmul_(grad, grad, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        s.grad_avg().mul_(o.alpha()).add_(grad, 1 - o.alpha());
        avg = s.square_avg().addcmul(s.grad_avg(), s.grad_avg(), -1).sqrt_();
      } else {
        avg = s.square_avg().sqrt();
      }
      avg.add_(o.eps());
      if (o.momentum() > 0) {
        s.momentum_buffer().mul_(o.momentum()).addcdiv_(grad, avg);
        p.add_(s.momentum_buffer(), -o.lr());
      } else {
        p.addcdiv_(grad, avg, -o.lr());
      }
    }
    RmspropUpdateParams params;
    params.lr = o.lr();
    params.alpha = o.alpha();
    params.one_minus_alpha = 1 - o.alpha();
    params.eps = o.eps();
    params.weight_decay = o.weight_decay();
    params.momentum = o.momentum();
    params.centered = o.centered();
    params.maximize = o.maximize();
    batch.run<OpId::rmsprop_update>(params);
  }
  return loss;
}

void RMSpropOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_double(archive, "alpha", alpha());
  detail::put_double(archive, "eps", eps());
  detail::put_double(archive, "weight_decay", weight_decay());
  detail::put_double(archive, "momentum", momentum());
  detail::put_bool(archive, "centered", centered());
  detail::put_bool(archive, "maximize", maximize());
}

void RMSpropOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  alpha(detail::get_double(archive, "alpha"));
  eps(detail::get_double(archive, "eps"));
  weight_decay(detail::get_double(archive, "weight_decay"));
  momentum(detail::get_double(archive, "momentum"));
  centered(detail::get_bool(archive, "centered"));
  maximize(detail::get_bool(archive, "maximize"));
}

void RMSpropParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_int(archive, "step", step());
  detail::put_tensor(archive, "square_avg", square_avg());
  detail::put_tensor(archive, "momentum_buffer", momentum_buffer());
  detail::put_tensor(archive, "grad_avg", grad_avg());
}

void RMSpropParamState::serialize(serialize::InputArchive& archive) {
  step(detail::get_int(archive, "step"));
  square_avg(detail::get_tensor(archive, "square_avg"));
  momentum_buffer(detail::get_tensor(archive, "momentum_buffer"));
  grad_avg(detail::get_tensor(archive, "grad_avg"));
}

std::unique_ptr<OptimizerParamState> RMSprop::make_param_state() const {
  return std::make_unique<RMSpropParamState>();
}

}  // namespace ember::optim
