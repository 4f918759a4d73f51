// SGD (src/optim/sgd.cpp): every configuration's trajectory against torch.optim.SGD
// (tests/golden/optim.golden, written by tests/golden/gen/optim.py), then the behaviours around
// the update rule: skipped parameters, the closure, option checks, lr changes through the param
// groups, momentum state, dtypes, and a small end-to-end fit.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/optim/sgd.h"
#include "tests/optim/optim_golden.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

// One group's options from its 6 sargs (the layout of gen/optim.py).
SGDOptions sgd_options(const double* s) {
  return SGDOptions(s[0])
      .momentum(s[1])
      .dampening(s[2])
      .weight_decay(s[3])
      .nesterov(s[4] != 0)
      .maximize(s[5] != 0);
}

}  // namespace

// Each step is the same sequence of ops as PyTorch's single-tensor loop (mul_, add_ with alpha), so
// the trajectories agree to float32 rounding: measured bit-identical here; the tolerance (4 ulp
// relative) leaves room only for a fused vs separate multiply-add on another CPU. A wrong rule
// (dampening on the first step, nesterov without the extra momentum term, decay after momentum)
// is off by 1e-3 or more.
TEST(OptimSgd, MatchesTorchTrajectories) {
  EXPECT_EQ(
      (ember_optim_test::check_trajectories<SGD, SGDOptions>("sgd", 6, sgd_options, 5e-7, 1e-15)),
      9);
}

TEST(OptimSgd, ParameterWithoutGradIsSkipped) {
  Tensor a = ones({3}).requires_grad_();
  Tensor b = ones({2}).requires_grad_();
  SGD opt({a, b}, SGDOptions(0.5).momentum(0.9).weight_decay(0.1));
  a.mutable_grad() = full({3}, 2.0);
  opt.step();
  EXPECT_TRUE(a.detach().allclose(full({3}, 1 - 0.5 * (2 + 0.1))));
  EXPECT_TRUE(b.detach().equal(ones({2})));  // weight decay would have moved it
  EXPECT_EQ(opt.state().size(), 1u);
  EXPECT_EQ(opt.state().count(a.unsafeGetTensorImpl()), 1u);
  EXPECT_EQ(opt.state().count(b.unsafeGetTensorImpl()), 0u);
}

TEST(OptimSgd, FirstMomentumBufferIsTheUndampedGradient) {
  Tensor p = zeros({2}).requires_grad_();
  SGD opt({p}, SGDOptions(1.0).momentum(0.9).dampening(0.5));
  p.mutable_grad() = tensor({1.0f, -2.0f});
  opt.step();
  auto& state = static_cast<SGDParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_TRUE(state.momentum_buffer().equal(tensor({1.0f, -2.0f})));
  EXPECT_FALSE(state.momentum_buffer().is_same(p.grad()));  // a copy, not the grad itself
  opt.step();                                               // buf = 0.9 * buf + 0.5 * grad
  EXPECT_TRUE(state.momentum_buffer().allclose(tensor({1.4f, -2.8f})));
  EXPECT_TRUE(p.detach().allclose(tensor({-2.4f, 4.8f})));
}

TEST(OptimSgd, ClosureIsCalledWithGradModeAndItsLossReturned) {
  Tensor w = full({1}, 2.0).requires_grad_();
  SGD opt({w}, SGDOptions(0.25));
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
  ASSERT_TRUE(loss.defined());
  EXPECT_DOUBLE_EQ(loss.item<double>(), 4.0);
  EXPECT_DOUBLE_EQ(w.item<double>(), 2.0 - 0.25 * 4.0);  // the closure's gradient was used
  EXPECT_FALSE(opt.step().defined());                    // no closure: no loss
  EXPECT_TRUE(GradMode::is_enabled());
}

TEST(OptimSgd, OptionErrors) {
  Tensor p = zeros({2}).requires_grad_();
  expect_error<ValueError>([&] { SGD({p}, SGDOptions(-0.1)); },
                           {"SGD", "Invalid learning rate", "-0.1"});
  expect_error<ValueError>([&] { SGD({p}, SGDOptions(0.1).momentum(-1)); },
                           {"Invalid momentum value", "-1"});
  expect_error<ValueError>([&] { SGD({p}, SGDOptions(0.1).weight_decay(-0.5)); },
                           {"Invalid weight_decay value", "-0.5"});
  expect_error<ValueError>([&] { SGD({p}, SGDOptions(0.1).nesterov(true)); },
                           {"Nesterov momentum requires a momentum and zero dampening"});
  expect_error<ValueError>(
      [&] { SGD({p}, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)); },
      {"Nesterov", "dampening = 0.1"});
  // A group's own options are checked when it is stepped (they may change after construction).
  Tensor q = zeros({2}).requires_grad_();
  SGD opt(
      std::vector<OptimizerParamGroup>{
          OptimizerParamGroup({p}),
          OptimizerParamGroup({q}, std::make_unique<SGDOptions>(SGDOptions(0.1).nesterov(true)))},
      SGDOptions(0.1));
  expect_error<ValueError>([&] { opt.step(); }, {"Nesterov", "param group 1"});
  opt.param_groups()[1].options().set_lr(-1);
  expect_error<ValueError>([&] { opt.step(); }, {"Invalid learning rate", "param group 1"});
}

TEST(OptimSgd, LrChangedThroughParamGroupsTakesEffect) {
  Tensor p = zeros({3}).requires_grad_();
  SGD opt({p}, SGDOptions(0.1));
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  opt.param_groups()[0].options().set_lr(0.5);
  p.mutable_grad() = ones({3});
  opt.step();
  EXPECT_TRUE(p.detach().allclose(full({3}, -0.5)));
  static_cast<SGDOptions&>(opt.param_groups()[0].options()).lr(2.0);
  opt.step();
  EXPECT_TRUE(p.detach().allclose(full({3}, -2.5)));
  // The defaults are a separate copy: changing them leaves the existing group alone.
  EXPECT_DOUBLE_EQ(opt.defaults().get_lr(), 0.1);
}

TEST(OptimSgd, OtherFloatDtypes) {
  for (ScalarType dtype : {kDouble, kHalf, kBFloat16}) {
    SCOPED_TRACE(to_string(dtype));
    Tensor p = full({4}, 1.0, dtype).requires_grad_();
    SGD opt({p}, SGDOptions(0.5).momentum(0.5));
    for (int k = 0; k < 2; ++k) {
      p.mutable_grad() = full({4}, 1.0, dtype);
      opt.step();
    }
    EXPECT_EQ(p.dtype(), dtype);
    // buf: 1, then 1.5; p: 1 - 0.5 - 0.75 (exact in every dtype).
    EXPECT_TRUE(p.detach().to(kDouble).equal(full({4}, -0.25, kDouble)));
  }
}

TEST(OptimSgd, OptionsCompareAndClone) {
  SGDOptions a = SGDOptions(0.1).momentum(0.9).nesterov(true);
  EXPECT_TRUE(a == SGDOptions(0.1).momentum(0.9).nesterov(true));
  EXPECT_FALSE(a == SGDOptions(0.1).momentum(0.9));
  EXPECT_FALSE(a == SGDOptions(0.1).momentum(0.9).nesterov(true).maximize(true));
  std::unique_ptr<OptimizerOptions> copy = a.clone();
  EXPECT_TRUE(static_cast<SGDOptions&>(*copy) == a);
  copy->set_lr(3);
  EXPECT_DOUBLE_EQ(a.lr(), 0.1);
  SGDParamState s1, s2;
  EXPECT_TRUE(s1 == s2);
  s1.momentum_buffer(ones({2}));
  EXPECT_FALSE(s1 == s2);
  s2.momentum_buffer(ones({2}));
  EXPECT_TRUE(s1 == s2);
  std::unique_ptr<OptimizerParamState> s3 = s1.clone();
  EXPECT_TRUE(static_cast<SGDParamState&>(*s3) == s1);
}

// End to end: fit y = 3x + 2 from zeros with momentum 0.9, as a user would write the loop.
TEST(OptimSgd, FitsALine) {
  Tensor x = linspace(-1, 1, 64).unsqueeze(1);
  Tensor y = 3 * x + 2;
  Tensor w = zeros({1}).requires_grad_();
  Tensor b = zeros({1}).requires_grad_();
  SGD opt({w, b}, SGDOptions(0.1).momentum(0.9));
  double last = 0;
  for (int epoch = 0; epoch < 300; ++epoch) {
    opt.zero_grad();
    Tensor loss = (x * w + b - y).square().mean();
    loss.backward();
    opt.step();
    last = loss.item<double>();
  }
  EXPECT_NEAR(w.item<double>(), 3.0, 1e-3);
  EXPECT_NEAR(b.item<double>(), 2.0, 1e-3);
  EXPECT_LT(last, 1e-6);

  // The same with a closure.
  Tensor w2 = zeros({1}).requires_grad_();
  Tensor b2 = zeros({1}).requires_grad_();
  SGD opt2({w2, b2}, SGDOptions(0.1).momentum(0.9));
  auto closure = [&] {
    opt2.zero_grad();
    Tensor loss = (x * w2 + b2 - y).square().mean();
    loss.backward();
    return loss;
  };
  for (int epoch = 0; epoch < 300; ++epoch) opt2.step(closure);
  EXPECT_NEAR(w2.item<double>(), 3.0, 1e-3);
  EXPECT_NEAR(b2.item<double>(), 2.0, 1e-3);
}
