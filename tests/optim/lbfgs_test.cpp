// LBFGS (src/optim/lbfgs.cpp, lbfgs_line_search.cpp): trajectories over a closure against
// torch.optim.LBFGS (tests/golden/optim.golden, cases lbfgs/*: the Rosenbrock function and a
// quadratic, fixed steps and strong-Wolfe line search, float32 and float64), then the options,
// state and errors.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/optim.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

// tests/golden/gen/optim.py's lbfgs_objective: problem 0 is Rosenbrock over the flattened
// parameters, problem 1 the quadratic 0.5 x.(A x) - b.x.
Tensor lbfgs_objective(const std::vector<Tensor>& params, int64_t problem, const Tensor& a,
                       const Tensor& b) {
  std::vector<Tensor> flat;
  for (const Tensor& p : params) flat.push_back(p.reshape({-1}));
  const Tensor x = cat(flat, 0);
  const int64_t n = x.size(0);
  if (problem == 0) {
    const Tensor head = x.narrow(0, 0, n - 1);
    const Tensor tail = x.narrow(0, 1, n - 1);
    return (100 * (tail - head * head).square() + (1 - head).square()).sum();
  }
  return 0.5 * (x * a.matmul(x)).sum() - (b * x).sum();
}

// LBFGS does a dot product per history entry per iteration, and Python keeps the first step
// length and the line search's arithmetic in float32 0-dim tensors where Ember (as LibTorch) uses
// doubles: float32 trajectories agree to ~1e-4 relative over these short runs (measured worst:
// 1.2e-4), not to a few ulp. float64 ones agree to ~1e-12 (Rosenbrock amplifies the 1e-16
// differences of the dot products over the run); a wrong update, history or line search is off
// by far more in both.
constexpr double kLbfgsFloatRtol = 2e-4, kLbfgsFloatAtol = 1e-6;
constexpr double kLbfgsDoubleRtol = 1e-10, kLbfgsDoubleAtol = 1e-12;

}  // namespace

TEST(OptimLBFGS, MatchesTorchTrajectories) {
  int checked = 0;
  for (const GoldenCase& c : load_golden("optim")) {
    if (c.op() != "lbfgs") continue;
    SCOPED_TRACE(c.location + " " + c.name + ": " + c.call);
    const auto nparam = static_cast<size_t>(c.ints.at(0));
    const auto nsteps = static_cast<size_t>(c.ints.at(1));
    const int64_t problem = c.ints.at(2);
    const std::vector<double>& s = c.scalars;
    ASSERT_EQ(s.size(), 7u);
    ASSERT_EQ(c.outs.size(), (nparam + 1) * nsteps);
    std::vector<Tensor> params;
    for (size_t i = 0; i < nparam; ++i) params.push_back(c.args[i].clone().requires_grad_());
    const Tensor a = problem == 1 ? c.args.at(nparam) : Tensor();
    const Tensor b = problem == 1 ? c.args.at(nparam + 1) : Tensor();
    LBFGSOptions options(s[0]);
    options.max_iter(static_cast<int64_t>(s[1]))
        .max_eval(static_cast<int64_t>(s[2]))
        .tolerance_grad(s[3])
        .tolerance_change(s[4])
        .history_size(static_cast<int64_t>(s[5]));
    if (s[6] != 0) options.line_search_fn("strong_wolfe");
    LBFGS opt(params, options);
    int calls = 0;
    auto closure = [&] {
      ++calls;
      opt.zero_grad();
      Tensor loss = lbfgs_objective(params, problem, a, b);
      loss.backward();
      return loss;
    };
    const bool dbl = c.args[0].dtype() == kDouble;
    const double rtol = dbl ? kLbfgsDoubleRtol : kLbfgsFloatRtol;
    const double atol = dbl ? kLbfgsDoubleAtol : kLbfgsFloatAtol;
    for (size_t k = 0; k < nsteps; ++k) {
      const Tensor loss = opt.step(closure);
      const std::string at = "step " + std::to_string(k);
      for (size_t i = 0; i < nparam; ++i)
        expect_close(params[i].detach(), c.outs[k * (nparam + 1) + i], rtol, atol,
                     at + " param " + std::to_string(i));
      expect_close(loss.detach(), c.outs[k * (nparam + 1) + nparam], rtol, atol, at + " loss");
    }
    const auto& state =
        static_cast<const LBFGSParamState&>(*opt.state().at(params[0].unsafeGetTensorImpl()));
    EXPECT_EQ(state.func_evals(), calls);
    EXPECT_GE(state.n_iter(), static_cast<int64_t>(nsteps));
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

TEST(OptimLBFGS, OptionsAreLibTorchs) {
  const LBFGSOptions d;
  EXPECT_EQ(d.lr(), 1);
  EXPECT_EQ(d.max_iter(), 20);
  EXPECT_FALSE(d.max_eval().has_value());
  EXPECT_EQ(d.tolerance_grad(), 1e-7);
  EXPECT_EQ(d.tolerance_change(), 1e-9);
  EXPECT_EQ(d.history_size(), 100);
  EXPECT_FALSE(d.line_search_fn().has_value());
  // The constructor fills in max_eval = max_iter * 5 / 4, in the defaults and the group.
  Tensor p = ones({2}).requires_grad_();
  LBFGS opt({p}, LBFGSOptions().max_iter(9));
  EXPECT_EQ(static_cast<const LBFGSOptions&>(opt.defaults()).max_eval(), 11);
  EXPECT_EQ(static_cast<const LBFGSOptions&>(opt.param_groups()[0].options()).max_eval(), 11);
  EXPECT_TRUE(LBFGSOptions().line_search_fn("strong_wolfe") ==
              LBFGSOptions().line_search_fn("strong_wolfe"));
  EXPECT_FALSE(LBFGSOptions() == LBFGSOptions().line_search_fn("strong_wolfe"));
}

TEST(OptimLBFGS, MinimisesAQuadraticAndKeepsItsHistory) {
  // f(x) = sum((x - 3)^2) over two parameters; one parameter never gets a gradient and is
  // treated as zero gradient (it does not move).
  Tensor p = zeros({3}, kDouble).requires_grad_();
  Tensor q = full({2}, 5.0, kDouble).requires_grad_();
  LBFGS opt({p, q}, LBFGSOptions(1).history_size(2).line_search_fn("strong_wolfe"));
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = (p - 3).square().sum();
    loss.backward();
    return loss;
  };
  const Tensor first = opt.step(closure);
  EXPECT_NEAR(first.item<double>(), 27.0, 1e-6);
  EXPECT_TRUE(p.detach().allclose(full({3}, 3.0, kDouble), 1e-9, 1e-9));
  EXPECT_TRUE(q.equal(full({2}, 5.0, kDouble)));
  ASSERT_EQ(opt.state().size(), 1u);  // the global state lives under the first parameter
  const auto& s = static_cast<const LBFGSParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_GE(s.func_evals(), 2);
  EXPECT_LE(s.old_dirs().size(), 2u);
  EXPECT_EQ(s.old_dirs().size(), s.ro().size());
  EXPECT_EQ(s.d().numel(), 5);
  LBFGSParamState copy = s;
  EXPECT_TRUE(copy == s);
  copy.t(copy.t() + 1);
  EXPECT_FALSE(copy == s);
  // At the optimum the next step returns at once (first-order optimality).
  const int64_t evals = s.func_evals();
  opt.step(closure);
  EXPECT_EQ(s.func_evals(), evals + 1);
}

TEST(OptimLBFGS, Errors) {
  Tensor p = ones({2}).requires_grad_(), q = ones({2}).requires_grad_();
  expect_error<ValueError>(
      [&] {
        LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup({p}), OptimizerParamGroup({q})});
      },
      {"LBFGS doesn't support per-parameter options (parameter groups)", "2 groups"});
  expect_error<ValueError>([&] { LBFGS({p}, LBFGSOptions().line_search_fn("backtracking")); },
                           {"only 'strong_wolfe' is supported", "backtracking"});
  expect_error<ValueError>([&] { LBFGS({p}, LBFGSOptions().history_size(0)); },
                           {"Invalid history_size value: 0"});
  LBFGS opt({p});
  expect_error([&] { opt.step(nullptr); }, {"LBFGS::step: LBFGS needs a closure"});
  expect_error([&] { opt.step([] { return ones({2}); }); }, {"one-element tensor", "[2]"});
  opt.add_param_group(OptimizerParamGroup({q}));
  expect_error<ValueError>([&] { opt.step([&] { return p.sum(); }); },
                           {"LBFGS doesn't support per-parameter options", "2 groups"});
}
