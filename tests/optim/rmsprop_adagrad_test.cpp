// RMSprop and Adagrad (src/optim/rmsprop.cpp, adagrad.cpp): every configuration's trajectory
// against torch.optim.RMSprop / Adagrad (tests/golden/optim.golden, written by
// tests/golden/gen/optim.py), then defaults, state and option checks.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

RMSpropOptions rmsprop_options(const double* s) {
  return RMSpropOptions(s[0])
      .alpha(s[1])
      .eps(s[2])
      .weight_decay(s[3])
      .momentum(s[4])
      .centered(s[5] != 0)
      .maximize(s[6] != 0);
}

AdagradOptions adagrad_options(const double* s) {
  return AdagradOptions(s[0])
      .lr_decay(s[1])
      .weight_decay(s[2])
      .initial_accumulator_value(s[3])
      .eps(s[4])
      .maximize(s[5] != 0);
}

// Runs every golden case of `kind` through Opt, group g's options read from sargs
// [width * g, width * (g + 1)); returns how many ran.
template <class Opt, class Options>
int check_trajectories(const std::string& kind, size_t width,
                       const std::function<Options(const double*)>& options_of) {
  int checked = 0;
  for (const GoldenCase& c : load_golden("optim")) {
    if (c.op() != kind) continue;
    SCOPED_TRACE(c.location + " " + c.name + ": " + c.call);
    const auto nparam = static_cast<size_t>(c.ints.at(0));
    const auto nsteps = static_cast<size_t>(c.ints.at(1));
    const std::vector<int64_t>& group_of = c.int_lists.at(0);
    const size_t ngroups = c.scalars.size() / width;
    EXPECT_EQ(c.outs.size(), nparam * nsteps);
    std::vector<Tensor> params;
    for (size_t i = 0; i < nparam; ++i) params.push_back(c.args[i].clone().requires_grad_());
    std::vector<OptimizerParamGroup> groups;
    for (size_t g = 0; g < ngroups; ++g) {
      std::vector<Tensor> members;
      for (size_t i = 0; i < nparam; ++i)
        if (static_cast<size_t>(group_of[i]) == g) members.push_back(params[i]);
      groups.emplace_back(members,
                          std::make_unique<Options>(options_of(c.scalars.data() + width * g)));
    }
    Opt opt(groups, options_of(c.scalars.data()));
    const bool dbl = c.args[0].dtype() == kDouble;
    for (size_t k = 0; k < nsteps; ++k) {
      for (size_t i = 0; i < nparam; ++i)
        params[i].mutable_grad() = c.args[nparam + k * nparam + i].clone();
      opt.step();
      for (size_t i = 0; i < nparam; ++i)
        expect_close(params[i].detach(), c.outs[k * nparam + i], dbl ? 1e-14 : 2e-6,
                     dbl ? 1e-16 : 1e-8,
                     "step " + std::to_string(k) + " param " + std::to_string(i));
    }
    ++checked;
  }
  return checked;
}

}  // namespace

// Op for op PyTorch 1.13's single-tensor loops; the float32 tolerance (a few ulp relative) leaves
// room for the scalar arguments' rounding only.
TEST(OptimRMSprop, MatchesTorchTrajectories) {
  EXPECT_EQ((check_trajectories<RMSprop, RMSpropOptions>("rmsprop", 7, rmsprop_options)), 7);
}

TEST(OptimAdagrad, MatchesTorchTrajectories) {
  EXPECT_EQ((check_trajectories<Adagrad, AdagradOptions>("adagrad", 6, adagrad_options)), 6);
}

TEST(OptimRMSprop, DefaultsStateAndErrors) {
  const RMSpropOptions d;
  EXPECT_EQ(d.lr(), 1e-2);
  EXPECT_EQ(d.alpha(), 0.99);
  EXPECT_EQ(d.eps(), 1e-8);
  EXPECT_FALSE(d.centered());
  Tensor p = ones({2}).requires_grad_();
  RMSprop opt({p}, RMSpropOptions(0.1).momentum(0.9).centered(true));
  p.mutable_grad() = full({2}, 2.0);
  opt.step();
  const auto& s = static_cast<const RMSpropParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(s.step(), 1);
  EXPECT_TRUE(s.square_avg().allclose(full({2}, 0.04)));  // 0.01 * 2 * 2
  EXPECT_TRUE(s.grad_avg().allclose(full({2}, 0.02)));
  EXPECT_TRUE(s.momentum_buffer().defined());
  expect_error<ValueError>([&] { RMSprop({p}, RMSpropOptions(-1)); },
                           {"RMSprop: Invalid learning rate: -1", "defaults"});
  expect_error<ValueError>([&] { RMSprop({p}, RMSpropOptions(0.1).alpha(-0.5)); },
                           {"RMSprop: Invalid alpha value: -0.5"});
  expect_error<ValueError>([&] { RMSprop({p}, RMSpropOptions(0.1).momentum(-1)); },
                           {"RMSprop: Invalid momentum value: -1"});
}

TEST(OptimAdagrad, StateExistsFromConstructionAndErrors) {
  const AdagradOptions d;
  EXPECT_EQ(d.lr(), 1e-2);
  EXPECT_EQ(d.eps(), 1e-10);
  Tensor p = ones({3}).requires_grad_();
  Adagrad opt({p}, AdagradOptions(0.1).initial_accumulator_value(0.5));
  ASSERT_EQ(opt.state().size(), 1u);  // before any step, as LibTorch's and Python's
  const auto& s = static_cast<const AdagradParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_TRUE(s.sum().equal(full({3}, 0.5f)));
  EXPECT_EQ(s.step(), 0);
  p.mutable_grad() = full({3}, 1.5);
  opt.step();
  EXPECT_EQ(s.step(), 1);
  EXPECT_TRUE(s.sum().allclose(full({3}, 0.5 + 2.25)));
  expect_error<ValueError>([&] { Adagrad({p}, AdagradOptions(0.1).lr_decay(-1)); },
                           {"Adagrad: Invalid lr_decay value: -1"});
  expect_error<ValueError>([&] { Adagrad({p}, AdagradOptions(0.1).initial_accumulator_value(-1)); },
                           {"Adagrad: Invalid initial_accumulator_value value: -1"});
  expect_error<ValueError>([&] { Adagrad({p}, AdagradOptions(0.1).eps(-1)); },
                           {"Adagrad: Invalid epsilon value: -1"});
}
