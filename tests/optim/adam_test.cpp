// Adam and AdamW (src/optim/adam.cpp): every configuration's trajectory against torch.optim.Adam /
// AdamW (tests/golden/optim.golden, written by tests/golden/gen/optim.py), then the behaviours
// around the update rule: defaults, skipped parameters, state, the closure, option checks and a
// small end-to-end fit.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "tests/optim/optim_golden.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

// One group's options from its 7 sargs (lr, beta1, beta2, eps, weight_decay, amsgrad, maximize:
// the layout of gen/optim.py).
template <class Options>
Options adam_options(const double* s) {
  return Options(s[0])
      .betas(std::make_tuple(s[1], s[2]))
      .eps(s[3])
      .weight_decay(s[4])
      .amsgrad(s[5] != 0)
      .maximize(s[6] != 0);
}

}  // namespace

// The same in-place ops in the same order as PyTorch 1.13's single-tensor loop; the float32
// tolerance (a few ulp relative) leaves room for the scalar arguments' rounding. A wrong rule
// (no bias correction, decay in the gradient for AdamW, amsgrad's maximum of the corrected
// moment) is off by 1e-3 or more.
TEST(OptimAdam, MatchesTorchTrajectories) {
  EXPECT_EQ((ember_optim_test::check_trajectories<Adam, AdamOptions>("adam", 7,
                                                                     adam_options<AdamOptions>)),
            7);
}

TEST(OptimAdamW, MatchesTorchTrajectories) {
  EXPECT_EQ((ember_optim_test::check_trajectories<AdamW, AdamWOptions>("adamw", 7,
                                                                       adam_options<AdamWOptions>)),
            7);
}

TEST(OptimAdam, DefaultsAreLibTorchs) {
  const AdamOptions a;
  EXPECT_EQ(a.lr(), 1e-3);
  EXPECT_EQ(a.betas(), std::make_tuple(0.9, 0.999));
  EXPECT_EQ(a.eps(), 1e-8);
  EXPECT_EQ(a.weight_decay(), 0.0);
  EXPECT_FALSE(a.amsgrad());
  const AdamWOptions w;
  EXPECT_EQ(w.weight_decay(), 1e-2);  // AdamW decays by default
  EXPECT_TRUE(AdamOptions(0.1) == AdamOptions(0.1));
  EXPECT_FALSE(AdamOptions(0.1) == AdamOptions(0.1).amsgrad(true));
  auto clone = AdamWOptions(0.5).betas(std::make_tuple(0.8, 0.99)).clone();
  EXPECT_TRUE(static_cast<const AdamWOptions&>(*clone) ==
              AdamWOptions(0.5).betas(std::make_tuple(0.8, 0.99)));
}

TEST(OptimAdam, StateCountsStepsAndSkipsParamsWithoutGrad) {
  Tensor a = ones({3}).requires_grad_();
  Tensor b = ones({2}).requires_grad_();
  Adam opt({a, b}, AdamOptions(0.1).amsgrad(true));
  a.mutable_grad() = full({3}, 2.0);
  opt.step();
  opt.step();
  EXPECT_TRUE(b.detach().equal(ones({2})));
  ASSERT_EQ(opt.state().size(), 1u);
  const auto& s = static_cast<const AdamParamState&>(*opt.state().at(a.unsafeGetTensorImpl()));
  EXPECT_EQ(s.step(), 2);
  // m = 0.1 * 2 after one step, then 0.9 * m + 0.1 * 2.
  EXPECT_TRUE(s.exp_avg().allclose(full({3}, 0.38)));
  EXPECT_TRUE(s.exp_avg_sq().allclose(full({3}, 4 * (0.001 * 0.999 + 0.001))));
  EXPECT_TRUE(s.max_exp_avg_sq().defined());
  // With a constant gradient, every bias-corrected step moves by lr (up to eps).
  EXPECT_TRUE(a.detach().allclose(full({3}, 1 - 2 * 0.1), 1e-5, 1e-6));
}

TEST(OptimAdamW, DecayIsDecoupledFromTheMoments) {
  Tensor p = full({2}, 2.0).requires_grad_();
  AdamW opt({p}, AdamWOptions(0.1).weight_decay(0.5));
  p.mutable_grad() = zeros({2});  // no gradient signal: only the decay moves p
  opt.step();
  EXPECT_TRUE(p.detach().allclose(full({2}, 2.0 * (1 - 0.1 * 0.5))));
  const auto& s = static_cast<const AdamWParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_TRUE(s.exp_avg().equal(zeros({2})));  // the decay never entered the moments
  // Adam's coupled decay instead puts weight_decay * p into the gradient.
  Tensor q = full({2}, 2.0).requires_grad_();
  Adam coupled({q}, AdamOptions(0.1).weight_decay(0.5));
  q.mutable_grad() = zeros({2});
  coupled.step();
  EXPECT_TRUE(q.detach().allclose(full({2}, 2.0 - 0.1), 1e-5, 1e-6));
}

TEST(OptimAdam, ClosureIsCalledWithGradModeAndItsLossReturned) {
  Tensor w = full({1}, 2.0).requires_grad_();
  Adam opt({w}, AdamOptions(0.25));
  int calls = 0;
  Tensor loss = opt.step([&] {
    ++calls;
    EXPECT_TRUE(GradMode::is_enabled());
    opt.zero_grad();
    Tensor l = (w * w).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(loss.item<double>(), 4.0);
  EXPECT_NEAR(w.item<double>(), 2.0 - 0.25, 1e-6);  // the first Adam step is lr * sign(g)
  EXPECT_FALSE(opt.step().defined());
}

TEST(OptimAdam, OptionErrors) {
  Tensor p = zeros({2}).requires_grad_();
  expect_error<ValueError>([&] { Adam({p}, AdamOptions(-0.1)); },
                           {"Adam: Invalid learning rate: -0.1", "defaults"});
  expect_error<ValueError>([&] { Adam({p}, AdamOptions(0.1).eps(-1)); },
                           {"Adam: Invalid epsilon value: -1"});
  expect_error<ValueError>(
      [&] { AdamW({p}, AdamWOptions(0.1).betas(std::make_tuple(1.0, 0.999))); },
      {"AdamW: Invalid beta parameter at index 0: 1"});
  expect_error<ValueError>([&] { Adam({p}, AdamOptions(0.1).betas(std::make_tuple(0.9, -0.5))); },
                           {"Adam: Invalid beta parameter at index 1: -0.5"});
  expect_error<ValueError>([&] { AdamW({p}, AdamWOptions(0.1).weight_decay(-1)); },
                           {"AdamW: Invalid weight_decay value: -1"});
  // A group's options are checked at step(), naming the group.
  Adam opt({p}, AdamOptions(0.1));
  static_cast<AdamOptions&>(opt.param_groups()[0].options()).lr(-1);
  p.mutable_grad() = ones({2});
  expect_error<ValueError>([&] { opt.step(); }, {"Adam", "param group 0"});
  Adam wrong(
      std::vector<OptimizerParamGroup>{OptimizerParamGroup({p}, std::make_unique<SGDOptions>(0.1))},
      AdamOptions(0.1));
  expect_error([&] { wrong.step(); }, {"Adam::step: param group 0 does not hold AdamOptions"});
}

TEST(OptimAdamW, FitsALine) {
  manual_seed(0);
  const Tensor x = randn({64, 1});
  const Tensor y = x * 3.0 - 1.0;
  nn::Linear model(1, 1);
  AdamW opt(model->parameters(), AdamWOptions(0.1).weight_decay(0));
  for (int i = 0; i < 300; ++i) {
    opt.zero_grad();
    Tensor loss = nn::functional::mse_loss(model(x), y);
    loss.backward();
    opt.step();
  }
  EXPECT_NEAR(model->weight.item<double>(), 3.0, 1e-2);
  EXPECT_NEAR(model->bias.item<double>(), -1.0, 1e-2);
}
