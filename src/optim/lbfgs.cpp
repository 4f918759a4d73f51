#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"
#include "src/optim/lbfgs_line_search.h"
#include "src/optim/serialize_fields.h"
#include "src/optim/update_common.h"

namespace ember::optim {

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

bool operator==(const LBFGSOptions& lhs, const LBFGSOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.max_iter() == rhs.max_iter() &&
         lhs.max_eval() == rhs.max_eval() && lhs.tolerance_grad() == rhs.tolerance_grad() &&
         lhs.tolerance_change() == rhs.tolerance_change() &&
         lhs.history_size() == rhs.history_size() && lhs.line_search_fn() == rhs.line_search_fn();
}

namespace {

template <class List>
bool lbfgs_same_tensors(const List& a, const List& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!detail::same_tensor_state(a[i], b[i])) return false;
  return true;
}

void lbfgs_check_options(const LBFGSOptions& o, const std::string& where) {
  EMBER_CHECK_VALUE(o.history_size() > 0,
                    "LBFGS: Invalid history_size value: {} ({}). Hint: history_size must be > 0",
                    o.history_size(), where);
  EMBER_CHECK_VALUE(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe",
                    "LBFGS: only 'strong_wolfe' is supported as line_search_fn, got '{}' ({}). "
                    "Hint: pass \"strong_wolfe\" or leave it unset for fixed steps",
                    o.line_search_fn().value_or(""), where);
}

// The value a float32 (or float64) 0-dim tensor would hold: Python keeps the first step length
// as such a tensor, so rounding here keeps float32 trajectories on PyTorch's.
double lbfgs_round_to(double value, ScalarType dtype) {
  return dtype == kFloat ? static_cast<double>(static_cast<float>(value)) : value;
}

}  // namespace

bool operator==(const LBFGSParamState& lhs, const LBFGSParamState& rhs) {
  if (lhs.al().has_value() != rhs.al().has_value()) return false;
  return lhs.func_evals() == rhs.func_evals() && lhs.n_iter() == rhs.n_iter() &&
         lhs.t() == rhs.t() && lhs.prev_loss() == rhs.prev_loss() &&
         detail::same_tensor_state(lhs.d(), rhs.d()) &&
         detail::same_tensor_state(lhs.H_diag(), rhs.H_diag()) &&
         detail::same_tensor_state(lhs.prev_flat_grad(), rhs.prev_flat_grad()) &&
         lbfgs_same_tensors(lhs.old_dirs(), rhs.old_dirs()) &&
         lbfgs_same_tensors(lhs.old_stps(), rhs.old_stps()) &&
         lbfgs_same_tensors(lhs.ro(), rhs.ro()) &&
         (!lhs.al() || lbfgs_same_tensors(*lhs.al(), *rhs.al()));
}

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  EMBER_CHECK_VALUE(param_groups_.size() == 1,
                    "LBFGS doesn't support per-parameter options (parameter groups): got {} "
                    "groups. Hint: pass one list of parameters",
                    param_groups_.size());
  lbfgs_check_options(defaults, "defaults");
  // As LibTorch: an unset max_eval becomes max_iter * 5 / 4 in the defaults and the group.
  if (!defaults.max_eval()) {
    const int64_t max_eval = defaults.max_iter() * 5 / 4;
    static_cast<LBFGSOptions&>(*defaults_).max_eval(max_eval);
    auto& group_options = static_cast<LBFGSOptions&>(param_groups_[0].options());
    if (!group_options.max_eval()) group_options.max_eval(max_eval);
  }
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

int64_t LBFGS::numel() const {
  int64_t total = 0;
  for (const Tensor& p : param_groups_.at(0).params()) total += p.numel();
  return total;
}

// All gradients as one vector; a parameter without a gradient contributes zeros.
Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups_.at(0).params())
    views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : zeros({p.numel()}, p.options()));
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (const Tensor& p : param_groups_.at(0).params()) {
    const int64_t n = p.numel();
    p.add_(update.narrow(0, offset, n).view_as(p), step_size);
    offset += n;
  }
}

std::vector<Tensor> LBFGS::clone_params() const {
  std::vector<Tensor> out;
  for (const Tensor& p : param_groups_.at(0).params()) out.push_back(p.clone());
  return out;
}

void LBFGS::set_params(const std::vector<Tensor>& values) {
  const auto& params = param_groups_.at(0).params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(values[i]);
}

namespace {
double lbfgs_loss_value(const Tensor& loss) {
  EMBER_CHECK(loss.defined() && loss.numel() == 1,
              "LBFGS::step: the closure must return the loss as a one-element tensor, got {}. "
              "Hint: return loss_fn(...) after calling backward() on it",
              loss.defined() ? "a tensor of shape " + fmt::format("{}", loss.sizes())
                             : std::string("an undefined tensor"));
  return loss.item<double>();
}
}  // namespace

std::tuple<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure,
                                                       const std::vector<Tensor>& x, double t,
                                                       const Tensor& d) {
  add_grad(t, d);
  const double loss = lbfgs_loss_value(detail::run_closure(closure));
  Tensor flat_grad = gather_flat_grad();
  set_params(x);
  return {loss, flat_grad};
}

// Python's LBFGS.step, step for step; scalars Python keeps in 0-dim tensors (ys, ro, al,
// H_diag) stay tensors here too, so they round as there.
Tensor LBFGS::step(LossClosure closure) {
  NoGradGuard no_grad;
  EMBER_CHECK(closure != nullptr,
              "LBFGS::step: LBFGS needs a closure that recomputes the loss. Hint: opt.step([&] {{ "
              "opt.zero_grad(); auto loss = ...; loss.backward(); return loss; }})");
  EMBER_CHECK_VALUE(param_groups_.size() == 1,
                    "LBFGS doesn't support per-parameter options (parameter groups): it has {} "
                    "groups. Hint: don't call add_param_group on LBFGS",
                    param_groups_.size());
  auto& group = param_groups_[0];
  const auto& o = detail::group_options<LBFGSOptions>(group, 0, "LBFGS", "LBFGSOptions");
  lbfgs_check_options(o, "param group 0");
  EMBER_CHECK_VALUE(!group.params().empty(), "LBFGS::step: the optimizer has no parameters");
  const double lr = o.lr();
  const int64_t max_iter = o.max_iter();
  const int64_t max_eval = o.max_eval().value_or(max_iter * 5 / 4);
  const double tolerance_grad = o.tolerance_grad();
  const double tolerance_change = o.tolerance_change();
  const auto history_size = static_cast<size_t>(o.history_size());

  // LBFGS has only global state; it is kept under the first parameter, as in Python.
  auto& state =
      detail::state_or_init<LBFGSParamState>(state_, group.params()[0], [](LBFGSParamState&) {});

  // Evaluate the initial f(x) and df/dx.
  const Tensor orig_loss = detail::run_closure(closure);
  double loss = lbfgs_loss_value(orig_loss);
  int64_t current_evals = 1;
  state.func_evals(state.func_evals() + 1);
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
  if (opt_cond) return orig_loss;  // already optimal

  Tensor d = state.d();
  double t = state.t();
  std::deque<Tensor>& old_dirs = state.old_dirs();
  std::deque<Tensor>& old_stps = state.old_stps();
  std::deque<Tensor>& ro = state.ro();
  Tensor H_diag = state.H_diag();
  Tensor prev_flat_grad = state.prev_flat_grad();
  double prev_loss = state.prev_loss();

  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    ++n_iter;
    state.n_iter(state.n_iter() + 1);

    // The descent direction.
    if (state.n_iter() == 1) {
      d = flat_grad.neg();
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      H_diag = ones({}, flat_grad.options());
    } else {
      // Update the memory with the last step s and gradient change y.
      const Tensor y = flat_grad.sub(prev_flat_grad);
      const Tensor s = d.mul(t);
      const Tensor ys = y.dot(s);
      if (ys.item<double>() > 1e-10) {
        if (old_dirs.size() >= history_size) {
          // Forget the oldest pair (limited memory).
          while (old_dirs.size() >= history_size) {
            old_dirs.pop_front();
            old_stps.pop_front();
            ro.pop_front();
          }
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(ys.reciprocal());
        // The scale of the initial inverse-Hessian approximation.
        H_diag = ys / y.dot(y);
      }
      // The two-loop recursion: d = -H g with the L-BFGS approximation H.
      const size_t num_old = old_dirs.size();
      if (!state.al()) state.al(std::vector<Tensor>(history_size));
      std::vector<Tensor>& al = *state.al();
      if (al.size() < num_old) al.resize(num_old);
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = old_stps[k].dot(q) * ro[k];
        q.add_(old_dirs[k], -al[k].item<double>());
      }
      d = q.mul(H_diag);
      for (size_t k = 0; k < num_old; ++k) {
        const Tensor be_k = old_dirs[k].dot(d) * ro[k];
        d.add_(old_stps[k], (al[k] - be_k).item<double>());
      }
    }
    if (!prev_flat_grad.defined())
      prev_flat_grad = flat_grad.clone();
    else
      prev_flat_grad.copy_(flat_grad);
    prev_loss = loss;

    // The step length: the first iteration ever is scaled down by the gradient's size.
    if (state.n_iter() == 1) {
      const double inv = flat_grad.abs().sum().reciprocal().item<double>();
      t = inv < 1. ? lbfgs_round_to(inv * lbfgs_round_to(lr, flat_grad.scalar_type()),
                                    flat_grad.scalar_type())
                   : lr;
    } else {
      t = lr;
    }

    // The directional derivative; stop when the direction no longer descends.
    const double gtd = flat_grad.dot(d).item<double>();
    if (gtd > -tolerance_change) break;

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      const std::vector<Tensor> x_init = clone_params();
      auto obj_func = [&](const std::vector<Tensor>& x, double step, const Tensor& dir) {
        return directional_evaluate(closure, x, step, dir);
      };
      detail::LbfgsLineSearchResult found =
          detail::lbfgs_strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd);
      loss = found.loss;
      flat_grad = found.flat_grad;
      t = found.t;
      ls_func_evals = found.func_evals;
      add_grad(t, d);
      opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
    } else {
      // A fixed step; re-evaluate except on the last iteration (in a stochastic setting the
      // evaluation would be wasted).
      add_grad(t, d);
      if (n_iter != max_iter) {
        loss = lbfgs_loss_value(detail::run_closure(closure));
        flat_grad = gather_flat_grad();
        opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.func_evals(state.func_evals() + ls_func_evals);

    // Stopping conditions.
    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    if (d.mul(t).abs().max().item<double>() <= tolerance_change) break;  // no progress
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }

  state.d(d);
  state.t(t);
  state.H_diag(H_diag);
  state.prev_flat_grad(prev_flat_grad);
  state.prev_loss(prev_loss);
  return orig_loss;
}

std::unique_ptr<OptimizerParamState> LBFGS::make_param_state() const {
  return std::make_unique<LBFGSParamState>();
}

void LBFGS::check_state_archive(serialize::InputArchive& state, const Tensor& param,
                                const std::string& where) const {
  const int64_t total = numel();
  for (const char* key : {"d", "prev_flat_grad", "old_dirs", "old_stps"}) {
    IValue v;
    if (!state.try_read(key, v)) continue;
    std::vector<Tensor> tensors;
    if (v.isTensor()) tensors.push_back(v.toTensor());
    if (v.isTensorList()) tensors = v.toTensorList();
    for (const Tensor& t : tensors)
      EMBER_CHECK(t.defined() && t.dim() == 1 && t.numel() == total,
                  "Optimizer::load: {}/{} has shape {}, expected [{}] (all LBFGS parameters "
                  "flattened). Hint: load into an optimizer over the same parameters",
                  where, key, t.defined() ? t.sizes() : IntArrayRef{}, total);
  }
  (void)param;
}

void LBFGSOptions::serialize(serialize::OutputArchive& archive) const {
  detail::put_double(archive, "lr", lr());
  detail::put_int(archive, "max_iter", max_iter());
  if (max_eval()) detail::put_int(archive, "max_eval", *max_eval());
  detail::put_double(archive, "tolerance_grad", tolerance_grad());
  detail::put_double(archive, "tolerance_change", tolerance_change());
  detail::put_int(archive, "history_size", history_size());
  if (line_search_fn()) detail::put_string(archive, "line_search_fn", *line_search_fn());
}

void LBFGSOptions::serialize(serialize::InputArchive& archive) {
  lr(detail::get_double(archive, "lr"));
  max_iter(detail::get_int(archive, "max_iter"));
  max_eval(detail::has_value(archive, "max_eval")
               ? std::optional<int64_t>(detail::get_int(archive, "max_eval"))
               : std::nullopt);
  tolerance_grad(detail::get_double(archive, "tolerance_grad"));
  tolerance_change(detail::get_double(archive, "tolerance_change"));
  history_size(detail::get_int(archive, "history_size"));
  line_search_fn(detail::has_value(archive, "line_search_fn")
                     ? std::optional<std::string>(detail::get_string(archive, "line_search_fn"))
                     : std::nullopt);
}

void LBFGSParamState::serialize(serialize::OutputArchive& archive) const {
  detail::put_int(archive, "func_evals", func_evals());
  detail::put_int(archive, "n_iter", n_iter());
  detail::put_double(archive, "t", t());
  detail::put_double(archive, "prev_loss", prev_loss());
  detail::put_tensor(archive, "d", d());
  detail::put_tensor(archive, "H_diag", H_diag());
  detail::put_tensor(archive, "prev_flat_grad", prev_flat_grad());
  detail::put_tensors(archive, "old_dirs", old_dirs());
  detail::put_tensors(archive, "old_stps", old_stps());
  detail::put_tensors(archive, "ro", ro());
  if (al()) {
    // al is scratch space filled from the front; its unused tail is undefined, so the defined
    // prefix and the length are written.
    std::deque<Tensor> filled;
    for (const Tensor& a : *al()) {
      if (!a.defined()) break;
      filled.push_back(a);
    }
    detail::put_tensors(archive, "al", filled);
    detail::put_int(archive, "al_size", static_cast<int64_t>(al()->size()));
  }
}

void LBFGSParamState::serialize(serialize::InputArchive& archive) {
  func_evals(detail::get_int(archive, "func_evals"));
  n_iter(detail::get_int(archive, "n_iter"));
  t(detail::get_double(archive, "t"));
  prev_loss(detail::get_double(archive, "prev_loss"));
  d(detail::get_tensor(archive, "d"));
  H_diag(detail::get_tensor(archive, "H_diag"));
  prev_flat_grad(detail::get_tensor(archive, "prev_flat_grad"));
  old_dirs(detail::get_tensors(archive, "old_dirs"));
  old_stps(detail::get_tensors(archive, "old_stps"));
  ro(detail::get_tensors(archive, "ro"));
  EMBER_CHECK(old_dirs().size() == old_stps().size() && old_dirs().size() == ro().size(),
              "Optimizer::load: LBFGS history lists differ in length: old_dirs {}, old_stps {}, "
              "ro {}",
              old_dirs().size(), old_stps().size(), ro().size());
  if (detail::has_value(archive, "al_size")) {
    const int64_t size = detail::get_int(archive, "al_size");
    std::deque<Tensor> filled = detail::get_tensors(archive, "al");
    EMBER_CHECK(size >= 0 && static_cast<size_t>(size) >= filled.size(),
                "Optimizer::load: entry 'al_size' is {}, expected at least {} (the entries of "
                "'al')",
                size, filled.size());
    std::vector<Tensor> scratch(filled.begin(), filled.end());
    scratch.resize(static_cast<size_t>(size));
    al(std::move(scratch));
  } else {
    al(std::nullopt);
  }
}

}  // namespace ember::optim
