// RMSprop and Adagrad (src/optim/rmsprop.cpp, adagrad.cpp): every configuration's trajectory
// against torch.optim.RMSprop / Adagrad (tests/golden/optim.golden, written by
// tests/golden/gen/optim.py), then defaults, state and option checks.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/optim/optim_golden.h"
#include "tests/support/expect_error.h"

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

}  // namespace

TEST(OptimRMSprop, MatchesTorchTrajectories) {
  EXPECT_EQ((ember_optim_test::check_trajectories<RMSprop, RMSpropOptions>("rmsprop", 7,
                                                                           rmsprop_options)),
            7);
}

TEST(OptimAdagrad, MatchesTorchTrajectories) {
  EXPECT_EQ((ember_optim_test::check_trajectories<Adagrad, AdagradOptions>("adagrad", 6,
                                                                           adagrad_options)),
            6);
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
