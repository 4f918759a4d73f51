// Adadelta and Adamax (src/optim/adadelta.cpp, adamax.cpp): every configuration's trajectory
// against torch.optim.Adadelta / Adamax (tests/golden/optim.golden, written by
// tests/golden/gen/optim.py), then defaults, state, param groups and option checks.
#include <gtest/gtest.h>

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

AdadeltaOptions adadelta_options(const double* s) {
  return AdadeltaOptions(s[0]).rho(s[1]).eps(s[2]).weight_decay(s[3]).maximize(s[4] != 0);
}

AdamaxOptions adamax_options(const double* s) {
  return AdamaxOptions(s[0])
      .betas(std::make_tuple(s[1], s[2]))
      .eps(s[3])
      .weight_decay(s[4])
      .maximize(s[5] != 0);
}

}  // namespace

TEST(OptimAdadelta, MatchesTorchTrajectories) {
  EXPECT_EQ((ember_optim_test::check_trajectories<Adadelta, AdadeltaOptions>("adadelta", 5,
                                                                             adadelta_options)),
            5);
}

TEST(OptimAdamax, MatchesTorchTrajectories) {
  EXPECT_EQ(
      (ember_optim_test::check_trajectories<Adamax, AdamaxOptions>("adamax", 6, adamax_options)),
      5);
}

TEST(OptimAdadelta, DefaultsArePythons) {
  const AdadeltaOptions d;
  EXPECT_EQ(d.lr(), 1.0);
  EXPECT_EQ(d.rho(), 0.9);
  EXPECT_EQ(d.eps(), 1e-6);
  EXPECT_EQ(d.weight_decay(), 0);
  EXPECT_FALSE(d.maximize());
  EXPECT_TRUE(AdadeltaOptions(0.5).rho(0.3) == AdadeltaOptions(0.5).rho(0.3));
  EXPECT_FALSE(AdadeltaOptions(0.5) == AdadeltaOptions(0.5).maximize(true));
}

TEST(OptimAdamax, DefaultsArePythons) {
  const AdamaxOptions d;
  EXPECT_EQ(d.lr(), 2e-3);
  EXPECT_EQ(d.betas(), std::make_tuple(0.9, 0.999));
  EXPECT_EQ(d.eps(), 1e-8);
  EXPECT_EQ(d.weight_decay(), 0);
  EXPECT_FALSE(d.maximize());
  EXPECT_FALSE(AdamaxOptions() == AdamaxOptions().betas(std::make_tuple(0.5, 0.999)));
}

TEST(OptimAdadelta, StateAndSkipsParamsWithoutGrad) {
  Tensor p = ones({2}).requires_grad_();
  Tensor q = full({3}, 2.0).requires_grad_();
  Adadelta opt({p, q}, AdadeltaOptions(1.0).rho(0.5).eps(1e-2));
  p.mutable_grad() = full({2}, 2.0);
  opt.step();
  ASSERT_EQ(opt.state().size(), 1u);  // q has no gradient: no state, not moved
  EXPECT_TRUE(q.equal(full({3}, 2.0)));
  const auto& s = static_cast<const AdadeltaParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(s.step(), 1);
  // square_avg = 0.5 * 4 = 2; delta = sqrt(0.01) / sqrt(2.01) * 2; acc_delta = 0.5 * delta^2.
  const double delta = std::sqrt(0.01) / std::sqrt(2.01) * 2;
  EXPECT_TRUE(s.square_avg().allclose(full({2}, 2.0)));
  EXPECT_TRUE(s.acc_delta().allclose(full({2}, 0.5 * delta * delta)));
  EXPECT_TRUE(p.detach().allclose(full({2}, 1 - delta)));
  AdadeltaParamState copy = s;
  EXPECT_TRUE(copy == s);
  copy.step(2);
  EXPECT_FALSE(copy == s);
}

TEST(OptimAdamax, StateAndSkipsParamsWithoutGrad) {
  Tensor p = ones({2}).requires_grad_();
  Tensor q = ones({1}).requires_grad_();
  Adamax opt({p, q}, AdamaxOptions(0.1));
  p.mutable_grad() = tensor({-3.0f, 0.5f});
  opt.step();
  ASSERT_EQ(opt.state().size(), 1u);
  EXPECT_TRUE(q.equal(ones({1})));
  const auto& s = static_cast<const AdamaxParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(s.step(), 1);
  EXPECT_TRUE(s.exp_inf().allclose(tensor({3.0f + 1e-8f, 0.5f + 1e-8f})));
  // First step: p - lr / (1 - 0.9) * 0.1 g / |g| = p - 0.1 sign(g).
  EXPECT_TRUE(p.detach().allclose(tensor({1.1f, 0.9f})));
}

TEST(OptimAdadelta, AddParamGroupAndZeroGrad) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  Adadelta opt({a}, AdadeltaOptions(1.0));
  opt.add_param_group(OptimizerParamGroup({b}, std::make_unique<AdadeltaOptions>(0.0)));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({2});
  opt.step();
  EXPECT_FALSE(a.equal(ones({2})));
  EXPECT_TRUE(b.equal(ones({2})));  // lr 0 in its own group
  EXPECT_EQ(opt.state().size(), 2u);
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
  expect_error<ValueError>([&] { opt.add_param_group(OptimizerParamGroup({a})); },
                           {"more than one parameter group"});
}

TEST(OptimAdamax, AddParamGroupAndZeroGrad) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  Adamax opt({a}, AdamaxOptions(0.1));
  opt.add_param_group(OptimizerParamGroup({b}));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_TRUE(static_cast<const AdamaxOptions&>(opt.param_groups()[1].options()) ==
              AdamaxOptions(0.1));
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({2});
  opt.step();
  EXPECT_TRUE(a.detach().allclose(full({2}, 0.9)));
  EXPECT_TRUE(b.detach().allclose(full({2}, 0.9)));
  opt.zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(a.grad().equal(zeros({2})));
}

TEST(OptimAdadelta, OptionErrors) {
  Tensor p = ones({2}).requires_grad_();
  expect_error<ValueError>([&] { Adadelta({p}, AdadeltaOptions(-1)); },
                           {"Adadelta: Invalid learning rate: -1", "defaults"});
  expect_error<ValueError>([&] { Adadelta({p}, AdadeltaOptions().rho(1.5)); },
                           {"Adadelta: Invalid rho value: 1.5"});
  expect_error<ValueError>([&] { Adadelta({p}, AdadeltaOptions().eps(-1)); },
                           {"Adadelta: Invalid epsilon value: -1"});
  expect_error<ValueError>([&] { Adadelta({p}, AdadeltaOptions().weight_decay(-0.5)); },
                           {"Adadelta: Invalid weight_decay value: -0.5"});
  // A group's own options are checked at step, naming the group.
  Tensor q = ones({2}).requires_grad_();
  Adadelta opt(std::vector<OptimizerParamGroup>{
      OptimizerParamGroup({p}), OptimizerParamGroup({q}, std::make_unique<AdadeltaOptions>(-2))});
  q.mutable_grad() = ones({2});
  expect_error<ValueError>([&] { opt.step(); }, {"Invalid learning rate: -2", "param group 1"});
}

TEST(OptimAdamax, OptionErrors) {
  Tensor p = ones({2}).requires_grad_();
  expect_error<ValueError>([&] { Adamax({p}, AdamaxOptions(-1)); },
                           {"Adamax: Invalid learning rate: -1", "defaults"});
  expect_error<ValueError>([&] { Adamax({p}, AdamaxOptions().eps(-1)); },
                           {"Adamax: Invalid epsilon value: -1"});
  expect_error<ValueError>([&] { Adamax({p}, AdamaxOptions().betas(std::make_tuple(1.0, 0.9))); },
                           {"Adamax: Invalid beta parameter at index 0: 1"});
  expect_error<ValueError>([&] { Adamax({p}, AdamaxOptions().betas(std::make_tuple(0.9, -0.1))); },
                           {"Adamax: Invalid beta parameter at index 1: -0.1"});
  expect_error<ValueError>([&] { Adamax({p}, AdamaxOptions().weight_decay(-1)); },
                           {"Adamax: Invalid weight_decay value: -1"});
  Adamax opt({p}, AdamaxOptions());
  opt.param_groups()[0].set_options(std::make_unique<AdadeltaOptions>());
  p.mutable_grad() = ones({2});
  expect_error([&] { opt.step(); }, {"param group 0 does not hold AdamaxOptions"});
}
