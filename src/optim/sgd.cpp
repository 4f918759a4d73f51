#include "ember/optim/sgd.h"

#include <string>
#include <utility>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

bool operator==(const SGDOptions& lhs, const SGDOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.momentum() == rhs.momentum() &&
         lhs.dampening() == rhs.dampening() && lhs.weight_decay() == rhs.weight_decay() &&
         lhs.nesterov() == rhs.nesterov() && lhs.maximize() == rhs.maximize();
}

bool operator==(const SGDParamState& lhs, const SGDParamState& rhs) {
  const Tensor& a = lhs.momentum_buffer();
  const Tensor& b = rhs.momentum_buffer();
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return a.sizes() == b.sizes() && a.equal(b);
}

namespace {
// `where` names the options in the message: "defaults" or "param group 1".
void check_options(const SGDOptions& o, const std::string& where) {
  EMBER_CHECK_VALUE(o.lr() >= 0, "SGD: Invalid learning rate: {} ({}). Hint: lr must be >= 0",
                    o.lr(), where);
  EMBER_CHECK_VALUE(o.momentum() >= 0,
                    "SGD: Invalid momentum value: {} ({}). Hint: momentum must be >= 0",
                    o.momentum(), where);
  EMBER_CHECK_VALUE(o.weight_decay() >= 0,
                    "SGD: Invalid weight_decay value: {} ({}). Hint: weight_decay must be >= 0",
                    o.weight_decay(), where);
  EMBER_CHECK_VALUE(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0),
                    "SGD: Nesterov momentum requires a momentum and zero dampening: momentum = "
                    "{}, dampening = {} ({}). Hint: set momentum > 0 and dampening(0), or "
                    "nesterov(false)",
                    o.momentum(), o.dampening(), where);
}
}  // namespace

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  check_options(defaults, "defaults");
}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
          std::move(defaults)) {}

Tensor SGD::step(LossClosure closure) {
  NoGradGuard no_grad;
  Tensor loss;
  if (closure) {
    AutoGradMode enable_grad(true);  // the closure runs forward and backward
    loss = closure();
  }
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto* options = dynamic_cast<const SGDOptions*>(&group.options());
    EMBER_CHECK(options != nullptr,
                "SGD::step: param group {} does not hold SGDOptions. Hint: give SGD's param "
                "groups SGDOptions (or none, to use the defaults)",
                gi);
    const SGDOptions& o = *options;
    check_options(o, "param group " + std::to_string(gi));
    // Parameters the fused kernel takes (src/optim/update_common.h) get the op chain below in
    // one pass each, all of the group in one call.
    detail::FusedBatch batch(OpId::sgd_update);
    // First momentum buffers the kernel fills: they join the state only once it has run, so an
    // error from a later parameter's op chain cannot leave an unfilled buffer behind.
    std::vector<std::pair<TensorImpl*, Tensor>> new_buffers;
    for (const Tensor& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      if (o.momentum() != 0) {
        auto it = state_.find(p.unsafeGetTensorImpl());
        const bool first = it == state_.end();
        // The new buffer is the kernel's to fill; it joins the state only if the kernel runs.
        const Tensor buf =
            first ? empty_like(p) : static_cast<SGDParamState&>(*it->second).momentum_buffer();
        if (OptimTensor* e = batch.try_add(p, grad, {&buf})) {
          e->first = first;
          if (first) new_buffers.emplace_back(p.unsafeGetTensorImpl(), buf);
          continue;
        }
      } else if (batch.try_add(p, grad, {})) {
        continue;
      }
      Tensor d_p = o.maximize() ? grad.neg() : grad;
      if (o.weight_decay() != 0) d_p = d_p.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        Tensor buf;
        auto it = state_.find(p.unsafeGetTensorImpl());
        if (it == state_.end()) {
          // The first buffer is the gradient itself, undamped (PyTorch's rule).
          buf = d_p.clone().detach();
          auto state = std::make_unique<SGDParamState>();
          state->momentum_buffer(buf);
          state_[p.unsafeGetTensorImpl()] = std::move(state);
        } else {
          buf = static_cast<SGDParamState&>(*it->second).momentum_buffer();
          buf.mul_(o.momentum()).add_(d_p, 1 - o.dampening());
        }
        d_p = o.nesterov() ? d_p.add(buf, o.momentum()) : buf;
      }
      p.add_(d_p, -o.lr());
    }
    SgdUpdateParams params;
    params.lr = o.lr();
    params.momentum = o.momentum();
    params.dampening = o.dampening();
    params.weight_decay = o.weight_decay();
    params.nesterov = o.nesterov();
    params.maximize = o.maximize();
    batch.run<OpId::sgd_update>(params);
    for (auto& [impl, buf] : new_buffers) {
      auto state = std::make_unique<SGDParamState>();
      state->momentum_buffer(buf);
      state_[impl] = std::move(state);
    }
  }
  return loss;
}

void SGDOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_double(archive, "momentum", momentum());
  detail::put_double(archive, "dampening", dampening());
  detail::put_double(archive, "weight_decay", weight_decay());
  detail::put_bool(archive, "nesterov", nesterov());
  detail::put_bool(archive, "maximize", maximize());
}

void SGDOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  momentum(detail::get_double(archive, "momentum"));
  dampening(detail::get_double(archive, "dampening"));
  weight_decay(detail::get_double(archive, "weight_decay"));
  nesterov(detail::get_bool(archive, "nesterov"));
  maximize(detail::get_bool(archive, "maximize"));
}

void SGDParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_tensor(archive, "momentum_buffer", momentum_buffer());
}

void SGDParamState::serialize(serialize::InputArchive& archive) {
  momentum_buffer(detail::get_tensor(archive, "momentum_buffer"));
}

std::unique_ptr<OptimizerParamState> SGD::make_param_state() const {
  return std::make_unique<SGDParamState>();
}

}  // namespace ember::optim
