// Reduction gradients where PyTorch's rules go beyond finite differences: ties, zeros, selected
// indices, undefined output gradients, and which results carry no gradient.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "tests/autograd/test_util.h"

using namespace ember;
using namespace autograd_test;

TEST(ReductionGrad, AmaxTiesSplitTheGradientEvenly) {
  Tensor x = leaf({1, 3, 3, 2});
  x.amax().backward();
  expect_values(x.grad(), {0, 0.5, 0.5, 0});
  EXPECT_EQ(x.amax().grad_fn()->name(), "AmaxBackward0");
}

TEST(ReductionGrad, AminTiesSplitPerReducedSlice) {
  Tensor x = tensor({{1.0, 1.0, 2.0}, {0.0, 5.0, 0.0}}, kDouble).requires_grad_();
  x.amin({1}).sum().backward();
  expect_values(x.grad(), {0.5, 0.5, 0, 0.5, 0, 0.5});
}

TEST(ReductionGrad, FullMaxAndMedianSplitTiesLikeAmax) {
  Tensor x = leaf({4, 1, 4});
  max(x).backward();
  expect_values(x.grad(), {0.5, 0, 0.5});
  Tensor y = leaf({1, 2, 2, 3});  // lower median 2, held twice
  median(y).backward();
  expect_values(y.grad(), {0, 0.5, 0.5, 0});
}

TEST(ReductionGrad, NanMaxGivesItsGradientToTheNan) {
  Tensor x = leaf({1, NAN, 2});
  max(x).backward();
  expect_values(x.grad(), {0, 1, 0});
}

TEST(ReductionGrad, MaxWithDimSendsTheGradientToTheIndexOnly) {
  Tensor x = tensor({{1.0, 3.0, 3.0}, {2.0, 0.0, 2.0}}, kDouble).requires_grad_();
  auto [values, indices] = max(x, 1);
  EXPECT_TRUE(values.requires_grad());
  EXPECT_FALSE(indices.requires_grad());
  EXPECT_EQ(values.grad_fn()->name(), "MaxBackward0");
  values.sum().backward();
  Tensor expected = zeros({2, 3}, kDouble).scatter(1, indices.unsqueeze(1), 1.0);
  EXPECT_TRUE(equal(x.grad(), expected));
  expect_values(x.grad().sum({1}), {1, 1});
}

TEST(ReductionGrad, MedianWithDimSendsTheGradientToTheIndex) {
  Tensor x = tensor({{5.0, 1.0, 3.0}, {2.0, 9.0, 4.0}}, kDouble).requires_grad_();
  auto [values, indices] = median(x, 1, /*keepdim=*/true);
  (values * tensor({{10.0}, {20.0}}, kDouble)).sum().backward();
  expect_values(x.grad(), {0, 0, 10, 0, 0, 20});
}

TEST(ReductionGrad, ProdWithZerosIsExact) {
  Tensor one_zero = leaf({2, 0, 3});
  one_zero.prod().backward();
  expect_values(one_zero.grad(), {0, 6, 0});

  Tensor two_zeros = leaf({0, 2, 0});
  two_zeros.prod().backward();
  expect_values(two_zeros.grad(), {0, 0, 0});

  Tensor rows = tensor({{2.0, 0.0, 3.0}, {1.0, 2.0, 3.0}}, kDouble).requires_grad_();
  rows.prod(1).sum().backward();
  expect_values(rows.grad(), {0, 6, 0, 6, 3, 2});
}

TEST(ReductionGrad, CumprodWithZerosIsExact) {
  // out = [x0, x0 x1, x0 x1 x2, x0 x1 x2 x3]; d sum(out) / dx1 = x0 + x0 x2 + x0 x2 x3.
  Tensor x = leaf({2, 0, 3, 4});
  x.cumprod(0).sum().backward();
  expect_values(x.grad(), {1, 32, 0, 0});

  Tensor y = leaf({2, 0, 3, 0});
  y.cumprod(0).sum().backward();
  expect_values(y.grad(), {1, 8, 0, 0});

  Tensor z = leaf({0, 0, 5});
  z.cumprod(0).sum().backward();
  expect_values(z.grad(), {1, 0, 0});
}

TEST(ReductionGrad, SortAndTopkScatterTheGradientBack) {
  Tensor x = leaf({3, 1, 2});
  auto [values, indices] = sort(x);
  EXPECT_FALSE(indices.requires_grad());
  (values * tensor({10.0, 20.0, 30.0}, kDouble)).sum().backward();
  expect_values(x.grad(), {30, 10, 20});

  Tensor y = leaf({3, 1, 2, 5});
  Tensor top = std::get<0>(topk(y, 2));  // [5, 3]
  EXPECT_EQ(top.grad_fn()->name(), "TopkBackward0");
  (top * tensor({10.0, 20.0}, kDouble)).sum().backward();
  expect_values(y.grad(), {20, 0, 0, 10});
}

TEST(ReductionGrad, NormAndStdAtZeroGiveZeroGradients) {
  Tensor x = zeros({3}, kDouble).requires_grad_();
  norm(x).backward();
  expect_values(x.grad(), {0, 0, 0});

  Tensor c = full({4}, 2.0, kDouble).requires_grad_();
  ember::std(c).backward();
  expect_values(c.grad(), {0, 0, 0, 0});
}

TEST(ReductionGrad, VarMeanWithOneOutputUsed) {
  Tensor x = leaf({1, 2, 3, 6});
  std::get<1>(var_mean(x)).backward();
  expect_values(x.grad(), {0.25, 0.25, 0.25, 0.25});

  Tensor y = leaf({1, 2, 3, 6});
  std::get<0>(var_mean(y)).backward();  // 2 (x - mean) / (n - 1), mean 3
  expect_values(y.grad(), {-4.0 / 3, -2.0 / 3, 0, 2});

  Tensor z = leaf({1, 2, 3, 6});
  auto [v, m] = var_mean(z);
  (v + m).backward();
  expect_values(z.grad(), {-4.0 / 3 + 0.25, -2.0 / 3 + 0.25, 0.25, 2.25});
}

TEST(ReductionGrad, IndexAndBoolResultsDoNotRequireGrad) {
  Tensor x = tensor({{1.0, 3.0}, {2.0, 0.0}}, kDouble).requires_grad_();
  EXPECT_FALSE(argmax(x).requires_grad());
  EXPECT_FALSE(argmin(x, 1).requires_grad());
  EXPECT_FALSE(argsort(x).requires_grad());
  EXPECT_FALSE(all(x).requires_grad());
  EXPECT_FALSE(any(x, 0).requires_grad());
  EXPECT_FALSE(count_nonzero(x).requires_grad());
  EXPECT_FALSE(std::get<1>(topk(x, 1)).requires_grad());
  EXPECT_FALSE(x.sum(kLong).requires_grad());
}

TEST(ReductionGrad, SoftmaxRowsGetZeroTotalGradient) {
  Tensor x = tensor({{1.0, 2.0, 3.0}, {-1.0, 0.0, 4.0}}, kDouble).requires_grad_();
  Tensor w = tensor({{1.0, 5.0, -2.0}, {0.5, 0.0, 3.0}}, kDouble);
  (softmax(x, 1) * w).sum().backward();
  expect_values(x.grad().sum({1}), {0, 0}, 1e-12);
  EXPECT_EQ(softmax(x, 1).grad_fn()->name(), "SoftmaxBackward0");
}

TEST(ReductionGrad, PromotedDtypeGradientComesBackInTheInputDtype) {
  Tensor x = tensor({1.0f, 2.0f, 3.0f}, kFloat).requires_grad_();
  Tensor y = log_softmax(x, 0, kDouble);
  EXPECT_EQ(y.dtype(), kDouble);
  y.sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat);
  Tensor z = tensor({1.0f, 2.0f}, kFloat).requires_grad_();
  z.cumsum(0, kDouble).sum().backward();
  expect_values(z.grad(), {2, 1});
}

TEST(ReductionGrad, ZeroDimInputsGetTheirGradient) {
  using Fn = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<Fn, double>> cases = {
      {[](const Tensor& x) { return x.sum(); }, 1},
      {[](const Tensor& x) { return x.prod(); }, 1},
      {[](const Tensor& x) { return x.prod(0); }, 1},
      {[](const Tensor& x) { return x.amax(); }, 1},
      {[](const Tensor& x) { return std::get<0>(x.max(0)); }, 1},
      {[](const Tensor& x) { return x.median(); }, 1},
      {[](const Tensor& x) { return std::get<0>(x.median(0, true)); }, 1},
      {[](const Tensor& x) { return std::get<0>(x.sort()); }, 1},
      {[](const Tensor& x) { return std::get<0>(x.topk(1)); }, 1},
      {[](const Tensor& x) { return x.cumsum(0); }, 1},
      {[](const Tensor& x) { return x.cumprod(0); }, 1},
      {[](const Tensor& x) { return x.softmax(0); }, 0},
      {[](const Tensor& x) { return x.log_softmax(0); }, 0},
      {[](const Tensor& x) { return x.logsumexp({0}); }, 1},
      {[](const Tensor& x) { return x.norm(); }, 1},
      {[](const Tensor& x) { return var(x, std::nullopt, 0.0); }, 0},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    Tensor x = full({}, 2.0, kDouble).requires_grad_();
    cases[i].first(x).backward();
    expect_values(x.grad(), {cases[i].second});
  }
}
