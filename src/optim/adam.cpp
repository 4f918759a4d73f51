// Adam and AdamW (include/ember/optim/adam.h, adamw.h): one update loop, the two differing only
// in where the weight decay goes (into the gradient, or decoupled onto the parameter).
#include <cmath>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/optim/adam.h"
#include "ember/optim/adamw.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

AdamOptions::AdamOptions(double lr) : lr_(lr) {}
AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

namespace {

template <class Options>
bool options_equal(const Options& a, const Options& b) {
  return a.lr() == b.lr() && a.betas() == b.betas() && a.eps() == b.eps() &&
         a.weight_decay() == b.weight_decay() && a.amsgrad() == b.amsgrad() &&
         a.maximize() == b.maximize();
}

template <class State>
bool states_equal(const State& a, const State& b) {
  return a.step() == b.step() && detail::same_tensor_state(a.exp_avg(), b.exp_avg()) &&
         detail::same_tensor_state(a.exp_avg_sq(), b.exp_avg_sq()) &&
         detail::same_tensor_state(a.max_exp_avg_sq(), b.max_exp_avg_sq());
}

// Python's checks, in its order. `name` is "Adam" or "AdamW"; `where` says which options
// ("defaults" or "param group 1").
template <class Options>
void check_options(const Options& o, const char* name, const std::string& where) {
  const auto [beta1, beta2] = o.betas();
  EMBER_CHECK_VALUE(o.lr() >= 0, "{}: Invalid learning rate: {} ({}). Hint: lr must be >= 0", name,
                    o.lr(), where);
  EMBER_CHECK_VALUE(o.eps() >= 0, "{}: Invalid epsilon value: {} ({}). Hint: eps must be >= 0",
                    name, o.eps(), where);
  EMBER_CHECK_VALUE(beta1 >= 0 && beta1 < 1,
                    "{}: Invalid beta parameter at index 0: {} ({}). Hint: betas must be in "
                    "[0, 1)",
                    name, beta1, where);
  EMBER_CHECK_VALUE(beta2 >= 0 && beta2 < 1,
                    "{}: Invalid beta parameter at index 1: {} ({}). Hint: betas must be in "
                    "[0, 1)",
                    name, beta2, where);
  EMBER_CHECK_VALUE(o.weight_decay() >= 0,
                    "{}: Invalid weight_decay value: {} ({}). Hint: weight_decay must be >= 0",
                    name, o.weight_decay(), where);
}

// One step over every group, as PyTorch 1.13's single-tensor loop: the same in-place ops in the
// same order, so float32 trajectories agree to rounding. `decoupled`: AdamW's decay. Parameters
// the fused kernel takes (src/optim/update_common.h) get that op chain in one pass each, all of a
// group in one call; the others go through the ops below.
template <class Options, class State>
Tensor adam_step(Optimizer& opt, const Optimizer::LossClosure& closure, const char* name,
                 bool decoupled) {
  NoGradGuard no_grad;
  const Tensor loss = detail::run_closure(closure);
  std::vector<OptimizerParamGroup>& groups = opt.param_groups();
  Optimizer::StateMap& states = opt.state();
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    auto& group = groups[gi];
    const Options& o =
        detail::group_options<Options>(group, gi, name, decoupled ? "AdamWOptions" : "AdamOptions");
    check_options(o, name, "param group " + std::to_string(gi));
    const auto [beta1, beta2] = o.betas();
    detail::FusedBatch batch(OpId::adam_update);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto it = states.find(p.unsafeGetTensorImpl());
      if (it == states.end()) {
        auto fresh = std::make_unique<State>();
        fresh->exp_avg(zeros_like(p));
        fresh->exp_avg_sq(zeros_like(p));
        if (o.amsgrad()) fresh->max_exp_avg_sq(zeros_like(p));
        it = states.emplace(p.unsafeGetTensorImpl(), std::move(fresh)).first;
      }
      State& s = static_cast<State&>(*it->second);
      s.step(s.step() + 1);
      // A state from before amsgrad was switched on has no running maximum yet.
      if (o.amsgrad() && !s.max_exp_avg_sq().defined()) s.max_exp_avg_sq(zeros_like(p));
      const double step = static_cast<double>(s.step());
      const double bias_correction1 = 1 - std::pow(beta1, step);
      const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, step));
      if (OptimTensor* e = batch.try_add(
              p, p.grad(),
              {&s.exp_avg(), &s.exp_avg_sq(), o.amsgrad() ? &s.max_exp_avg_sq() : nullptr})) {
        e->scalar[0] = -(o.lr() / bias_correction1);
        e->scalar[1] = bias_correction2_sqrt;
        continue;
      }
      const Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      Tensor g = grad;
      if (decoupled)
        p.mul_(1 - o.lr() * o.weight_decay());
      else if (o.weight_decay() != 0)
        g = g.add(p, o.weight_decay());
      s.exp_avg().mul_(beta1).add_(g, 1 - beta1);
      s.exp_avg_sq().mul_(beta2).addcmul_(g, g, 1 - beta2);
      Tensor second = s.exp_avg_sq();
      if (o.amsgrad()) {
        s.max_exp_avg_sq().copy_(maximum(s.max_exp_avg_sq(), s.exp_avg_sq()));
        second = s.max_exp_avg_sq();
      }
      const Tensor denom = (second.sqrt() / bias_correction2_sqrt).add_(o.eps());
      p.addcdiv_(s.exp_avg(), denom, -(o.lr() / bias_correction1));
    }
    AdamUpdateParams params;
    params.beta1 = beta1;
    params.beta2 = beta2;
    params.one_minus_beta1 = 1 - beta1;
    params.one_minus_beta2 = 1 - beta2;
    params.eps = o.eps();
    params.weight_decay = o.weight_decay();
    params.decay_factor = 1 - o.lr() * o.weight_decay();
    params.amsgrad = o.amsgrad();
    params.maximize = o.maximize();
    params.decoupled = decoupled;
    batch.run<OpId::adam_update>(params);
  }
  return loss;
}

}  // namespace

bool operator==(const AdamOptions& lhs, const AdamOptions& rhs) { return options_equal(lhs, rhs); }
bool operator==(const AdamWOptions& lhs, const AdamWOptions& rhs) {
  return options_equal(lhs, rhs);
}
bool operator==(const AdamParamState& lhs, const AdamParamState& rhs) {
  return states_equal(lhs, rhs);
}
bool operator==(const AdamWParamState& lhs, const AdamWParamState& rhs) {
  return states_equal(lhs, rhs);
}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  check_options(defaults, "Adam", "defaults");
}
Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
           std::move(defaults)) {}
Tensor Adam::step(LossClosure closure) {
  return adam_step<AdamOptions, AdamParamState>(*this, closure, "Adam",
                                                /*decoupled=*/false);
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  check_options(defaults, "AdamW", "defaults");
}
AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}
Tensor AdamW::step(LossClosure closure) {
  return adam_step<AdamWOptions, AdamWParamState>(*this, closure, "AdamW",
                                                  /*decoupled=*/true);
}

namespace {

template <class Options>
void adam_options_out(const Options& o, serialize::OutputArchive& archive) {
  detail::put_double(archive, "lr", o.lr());
  detail::put_pair(archive, "betas", o.betas());
  detail::put_double(archive, "eps", o.eps());
  detail::put_double(archive, "weight_decay", o.weight_decay());
  detail::put_bool(archive, "amsgrad", o.amsgrad());
  detail::put_bool(archive, "maximize", o.maximize());
}

template <class Options>
void adam_options_in(Options& o, serialize::InputArchive& archive) {
  o.lr(detail::get_double(archive, "lr"));
  o.betas(detail::get_pair(archive, "betas"));
  o.eps(detail::get_double(archive, "eps"));
  o.weight_decay(detail::get_double(archive, "weight_decay"));
  o.amsgrad(detail::get_bool(archive, "amsgrad"));
  o.maximize(detail::get_bool(archive, "maximize"));
}

template <class State>
void adam_state_out(const State& s, serialize::OutputArchive& archive) {
  detail::put_int(archive, "step", s.step());
  detail::put_tensor(archive, "exp_avg", s.exp_avg());
  detail::put_tensor(archive, "exp_avg_sq", s.exp_avg_sq());
  detail::put_tensor(archive, "max_exp_avg_sq", s.max_exp_avg_sq());
}

template <class State>
void adam_state_in(State& s, serialize::InputArchive& archive) {
  s.step(detail::get_int(archive, "step"));
  s.exp_avg(detail::get_tensor(archive, "exp_avg"));
  s.exp_avg_sq(detail::get_tensor(archive, "exp_avg_sq"));
  s.max_exp_avg_sq(detail::get_tensor(archive, "max_exp_avg_sq"));
}

}  // namespace

void AdamOptions::serialize(serialize::OutputArchive& archive) const {
  adam_options_out(*this, archive);
}
void AdamOptions::serialize(serialize::InputArchive& archive) { adam_options_in(*this, archive); }
void AdamWOptions::serialize(serialize::OutputArchive& archive) const {
  adam_options_out(*this, archive);
}
void AdamWOptions::serialize(serialize::InputArchive& archive) { adam_options_in(*this, archive); }
void AdamParamState::serialize(serialize::OutputArchive& archive) const {
  adam_state_out(*this, archive);
}
void AdamParamState::serialize(serialize::InputArchive& archive) { adam_state_in(*this, archive); }
void AdamWParamState::serialize(serialize::OutputArchive& archive) const {
  adam_state_out(*this, archive);
}
void AdamWParamState::serialize(serialize::InputArchive& archive) { adam_state_in(*this, archive); }
std::unique_ptr<OptimizerParamState> Adam::make_param_state() const {
  return std::make_unique<AdamParamState>();
}
std::unique_ptr<OptimizerParamState> AdamW::make_param_state() const {
  return std::make_unique<AdamWParamState>();
}

}  // namespace ember::optim
