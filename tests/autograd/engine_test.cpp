// The engine's behaviour: accumulation, broadcasting, graph lifetime, higher derivatives, grad().
#include <gtest/gtest.h>

#include <limits>
#include <thread>

#include "ember/ember.h"
#include "tests/autograd/test_util.h"

using namespace ember;
using namespace autograd_test;
using autograd::variable_list;

TEST(Engine, MulAddBackwardGivesProductRule) {
  Tensor x = leaf({1, 2, 3}), y = leaf({4, 5, 6});
  Tensor z = (x * y + x).sum();
  z.backward();
  expect_values(x.grad(), {5, 6, 7});
  expect_values(y.grad(), {1, 2, 3});
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(z.is_leaf());
  EXPECT_EQ(z.grad_fn()->name(), "SumBackward0");
}

TEST(Engine, GradientsAccumulateAcrossBackwardCalls) {
  Tensor x = leaf({1, 2});
  (x * 2).sum().backward();
  (x * 3).sum().backward();
  expect_values(x.grad(), {5, 5});
}

TEST(Engine, BroadcastInputsGetSummedGradients) {
  Tensor x = zeros({2, 3}, kDouble).requires_grad_();
  Tensor b = leaf({1, 2, 3});
  (x + b).sum().backward();
  expect_values(b.grad(), {2, 2, 2});
  EXPECT_EQ(x.grad().sizes(), x.sizes());
}

TEST(Engine, PromotedInputGetsGradientInItsDtype) {
  Tensor x = ones({3}, kFloat).requires_grad_();
  Tensor y = ones({3}, kDouble).requires_grad_();
  (x * y).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat);
  EXPECT_EQ(y.grad().dtype(), kDouble);
}

TEST(Engine, SecondBackwardThroughFreedGraphThrows) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * x).sum();
  y.backward();
  try {
    y.backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("backward through the graph a second time"),
              std::string::npos)
        << e.what();
  }
}

TEST(Engine, RetainGraphAllowsSecondBackward) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  expect_values(x.grad(), {4, 8});
}

TEST(Engine, CreateGraphGivesSecondAndThirdDerivatives) {
  Tensor x = leaf({2});
  Tensor y = x * x * x;  // 3x^2, 6x, 6
  variable_list d1 = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_values(d1[0], {12});
  variable_list d2 = autograd::grad({d1[0]}, {x}, {}, std::nullopt, true);
  expect_values(d2[0], {12});
  variable_list d3 = autograd::grad({d2[0]}, {x});
  expect_values(d3[0], {6});
}

TEST(Engine, GradDoesNotTouchLeafGrads) {
  Tensor x = leaf({1, 2}), w = leaf({3, 4});
  Tensor y = (x * w).sum();
  variable_list g = autograd::grad({y}, {x});
  expect_values(g[0], {3, 4});
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
}

TEST(Engine, GradOfUnusedInputNeedsAllowUnused) {
  Tensor x = leaf({1}), unused = leaf({1});
  Tensor y = (x * 2).sum();
  EXPECT_THROW(autograd::grad({y}, {x, unused}, {}, true), Error);
  variable_list g = autograd::grad({y}, {x, unused}, {}, std::nullopt, false, true);
  expect_values(g[0], {2});
  EXPECT_FALSE(g[1].defined());
}

TEST(Engine, BackwardInputsLimitsAccumulation) {
  Tensor x = leaf({1}), w = leaf({2});
  Tensor y = (x * w).sum();
  y.backward({}, std::nullopt, false, {x});
  expect_values(x.grad(), {2});
  EXPECT_FALSE(w.grad().defined());
}

TEST(Engine, NonScalarBackwardNeedsGradient) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  EXPECT_THROW(y.backward(), Error);
  y.backward(tensor(std::vector<double>{1, 10}, kDouble));
  expect_values(x.grad(), {2, 20});
}

TEST(Engine, BackwardOnTensorWithoutGradThrows) {
  Tensor x = ones({1});
  try {
    x.backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not require grad"), std::string::npos);
  }
}

TEST(GradMode, NoGradGuardStopsRecording) {
  Tensor x = leaf({1});
  {
    NoGradGuard g;
    EXPECT_FALSE(GradMode::is_enabled());
    EXPECT_FALSE((x * 2).requires_grad());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  EXPECT_TRUE((x * 2).requires_grad());
  {
    AutoGradMode off(false);
    EXPECT_FALSE((x * 2).requires_grad());
    AutoGradMode on(true);
    EXPECT_TRUE((x * 2).requires_grad());
  }
  {
    InferenceMode im;
    EXPECT_TRUE(InferenceMode::is_enabled());
    EXPECT_FALSE((x * 2).requires_grad());
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
}

TEST(GradMode, IsThreadLocal) {
  NoGradGuard g;
  bool other_thread_enabled = false;
  std::thread t([&] { other_thread_enabled = GradMode::is_enabled(); });
  t.join();
  EXPECT_TRUE(other_thread_enabled);
}

TEST(Engine, DetachCutsTheGraph) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * 2).detach();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  Tensor z = x * 3;
  z.detach_();
  EXPECT_FALSE(z.requires_grad());
}

TEST(Engine, RequiresGradOnNonLeafCannotBeCleared) {
  Tensor x = leaf({1});
  Tensor y = x * 2;
  EXPECT_THROW(y.requires_grad_(false), Error);
  EXPECT_THROW(ones({2}, kLong).requires_grad_(), Error);
}

TEST(Engine, OutVariantRefusesGrad) {
  Tensor x = leaf({1, 2});
  Tensor out = empty({2}, kDouble);
  EXPECT_THROW(exp_out(out, x), Error);
  NoGradGuard g;
  exp_out(out, x);
}

TEST(Anomaly, NamesTheNodeThatProducedNan) {
  Tensor x = tensor(std::vector<double>{0.0}, kDouble).requires_grad_();
  Tensor y = (x.sqrt() * 0).sum();  // d sqrt at 0 is inf; inf * 0 = nan
  autograd::DetectAnomalyGuard guard;
  try {
    y.backward();
    FAIL() << "expected the anomaly check to throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SqrtBackward0"), std::string::npos) << e.what();
  }
}

TEST(Engine, LeafGradientHasTheLeafsLayout) {
  // A transposed (non-contiguous) parameter gets a gradient with the same strides, as LibTorch.
  Tensor w = randn({4, 3}, kDouble).t().requires_grad_();
  (w * 2).sum().backward();
  EXPECT_EQ(w.grad().strides(), w.strides());
  expect_values(w.grad(), std::vector<double>(12, 2.0));
}

TEST(Engine, GradientBufferIsStolenWhenNobodyElseHoldsIt) {
  Tensor x = ones({3}, kDouble).requires_grad_();
  (x * 5).sum().backward();
  const void* first = x.grad().data_ptr();
  (x * 5).sum().backward();  // accumulates in place into the same buffer
  EXPECT_EQ(x.grad().data_ptr(), first);
  expect_values(x.grad(), {10, 10, 10});
}

TEST(Engine, ReluBackwardIgnoresTheGradientWhereReluIsFlat) {
  // PyTorch's threshold_backward: 0 where the output is 0, whatever the incoming gradient is
  // (a product grad * mask would turn an inf or NaN there into NaN).
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = tensor({-1.0f, 0.0f, 2.0f, -3.0f}).requires_grad_(true);
  relu(x).backward(tensor({nan, inf, 5.0f, -inf}));
  const Tensor g = x.grad();
  EXPECT_EQ(g[0].item<float>(), 0.0f);
  EXPECT_EQ(g[1].item<float>(), 0.0f);
  EXPECT_EQ(g[2].item<float>(), 5.0f);
  EXPECT_EQ(g[3].item<float>(), 0.0f);
}
