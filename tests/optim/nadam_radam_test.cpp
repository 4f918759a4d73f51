// NAdam and RAdam (src/optim/nadam.cpp, radam.cpp): every configuration's trajectory against
// torch.optim.NAdam / RAdam (tests/golden/optim.golden, written by tests/golden/gen/optim.py),
// then defaults, state, param groups and option checks.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "ember/optim.h"
#include "tests/optim/optim_golden.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

NAdamOptions nadam_options(const double* s) {
  return NAdamOptions(s[0])
      .betas(std::make_tuple(s[1], s[2]))
      .eps(s[3])
      .weight_decay(s[4])
      .momentum_decay(s[5]);
}

RAdamOptions radam_options(const double* s) {
  return RAdamOptions(s[0]).betas(std::make_tuple(s[1], s[2])).eps(s[3]).weight_decay(s[4]);
}

}  // namespace

TEST(OptimNAdam, MatchesTorchTrajectories) {
  EXPECT_EQ((ember_optim_test::check_trajectories<NAdam, NAdamOptions>("nadam", 6, nadam_options)),
            5);
}

TEST(OptimRAdam, MatchesTorchTrajectories) {
  EXPECT_EQ((ember_optim_test::check_trajectories<RAdam, RAdamOptions>("radam", 5, radam_options)),
            5);
}

TEST(OptimNAdam, DefaultsArePythons) {
  const NAdamOptions d;
  EXPECT_EQ(d.lr(), 2e-3);
  EXPECT_EQ(d.betas(), std::make_tuple(0.9, 0.999));
  EXPECT_EQ(d.eps(), 1e-8);
  EXPECT_EQ(d.weight_decay(), 0);
  EXPECT_EQ(d.momentum_decay(), 4e-3);
  EXPECT_FALSE(NAdamOptions() == NAdamOptions().momentum_decay(0.1));
}

TEST(OptimRAdam, DefaultsArePythons) {
  const RAdamOptions d;
  EXPECT_EQ(d.lr(), 1e-3);
  EXPECT_EQ(d.betas(), std::make_tuple(0.9, 0.999));
  EXPECT_EQ(d.eps(), 1e-8);
  EXPECT_EQ(d.weight_decay(), 0);
  EXPECT_TRUE(RAdamOptions(0.1) == RAdamOptions(0.1));
}

TEST(OptimNAdam, MuProductFollowsTheScheduleInFloat32) {
  Tensor p = zeros({2}, kDouble).requires_grad_();
  Tensor q = ones({2}).requires_grad_();
  NAdam opt({p, q}, NAdamOptions(0.01).momentum_decay(0.5));
  double expected = 1;
  for (int step = 1; step <= 3; ++step) {
    p.mutable_grad() = ones({2}, kDouble);
    opt.step();
    expected = static_cast<float>(static_cast<float>(expected) *
                                  static_cast<float>(0.9 * (1 - 0.5 * std::pow(0.96, step * 0.5))));
  }
  ASSERT_EQ(opt.state().size(), 1u);  // q never had a gradient
  EXPECT_TRUE(q.equal(ones({2})));
  const auto& s = static_cast<const NAdamParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(s.step(), 3);
  EXPECT_EQ(s.mu_product(), expected);
  EXPECT_EQ(static_cast<double>(static_cast<float>(s.mu_product())), s.mu_product());
}

TEST(OptimRAdam, UnrectifiedStepsAreMomentumSteps) {
  // With beta2 = 0.999, rho_t <= 5 for the first steps: p -= lr * m / (1 - beta1^t), which on
  // the first step with a constant gradient g is lr * g.
  Tensor p = zeros({3}).requires_grad_();
  Tensor q = ones({1}).requires_grad_();
  RAdam opt({p, q}, RAdamOptions(0.1));
  p.mutable_grad() = full({3}, 2.0);
  opt.step();
  EXPECT_TRUE(p.detach().allclose(full({3}, -0.2)));
  EXPECT_TRUE(q.equal(ones({1})));
  ASSERT_EQ(opt.state().size(), 1u);
  const auto& s = static_cast<const RAdamParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(s.step(), 1);
  EXPECT_TRUE(s.exp_avg().allclose(full({3}, 0.2)));
  EXPECT_TRUE(s.exp_avg_sq().allclose(full({3}, 0.004)));
}

TEST(OptimNAdam, AddParamGroupAndZeroGrad) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  NAdam opt({a}, NAdamOptions(0.1));
  opt.add_param_group(OptimizerParamGroup({b}, std::make_unique<NAdamOptions>(0.0)));
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({2});
  opt.step();
  EXPECT_FALSE(a.equal(ones({2})));
  EXPECT_TRUE(b.equal(ones({2})));
  EXPECT_EQ(opt.state().size(), 2u);
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
}

TEST(OptimRAdam, AddParamGroupAndZeroGrad) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  RAdam opt({a}, RAdamOptions(0.1));
  opt.add_param_group(OptimizerParamGroup({b}, std::make_unique<RAdamOptions>(0.5)));
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({2});
  opt.step();
  EXPECT_TRUE(a.detach().allclose(full({2}, 0.9)));
  EXPECT_TRUE(b.detach().allclose(full({2}, 0.5)));
  opt.zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(b.grad().equal(zeros({2})));
}

TEST(OptimNAdam, OptionErrors) {
  Tensor p = ones({2}).requires_grad_();
  expect_error<ValueError>([&] { NAdam({p}, NAdamOptions(-1)); },
                           {"NAdam: Invalid learning rate: -1", "defaults"});
  expect_error<ValueError>([&] { NAdam({p}, NAdamOptions().eps(-1)); },
                           {"NAdam: Invalid epsilon value: -1"});
  expect_error<ValueError>([&] { NAdam({p}, NAdamOptions().betas(std::make_tuple(-0.5, 0.9))); },
                           {"NAdam: Invalid beta parameter at index 0: -0.5"});
  expect_error<ValueError>([&] { NAdam({p}, NAdamOptions().weight_decay(-1)); },
                           {"NAdam: Invalid weight_decay value: -1"});
  expect_error<ValueError>([&] { NAdam({p}, NAdamOptions().momentum_decay(-1)); },
                           {"NAdam: Invalid momentum_decay value: -1"});
}

TEST(OptimRAdam, OptionErrors) {
  Tensor p = ones({2}).requires_grad_();
  expect_error<ValueError>([&] { RAdam({p}, RAdamOptions(-1)); },
                           {"RAdam: Invalid learning rate: -1", "defaults"});
  expect_error<ValueError>([&] { RAdam({p}, RAdamOptions().betas(std::make_tuple(0.9, 1.0))); },
                           {"RAdam: Invalid beta parameter at index 1: 1"});
  expect_error<ValueError>([&] { RAdam({p}, RAdamOptions().weight_decay(-1)); },
                           {"RAdam: Invalid weight_decay value: -1"});
  RAdam opt({p}, RAdamOptions());
  static_cast<RAdamOptions&>(opt.param_groups()[0].options()).eps(-3);
  p.mutable_grad() = ones({2});
  expect_error<ValueError>([&] { opt.step(); }, {"Invalid epsilon value: -3", "param group 0"});
}
