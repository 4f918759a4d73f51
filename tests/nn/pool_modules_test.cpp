// Pooling modules: forward / forward_with_indices against the functional forms, pretty_print as
// LibTorch prints, no state, MaxUnpool inverting MaxPool, FractionalMaxPool seeded through ember's
// generator and its option checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;
using ember_test::printed;

namespace {

Tensor pool_distinct(IntArrayRef sizes, ScalarType dtype = kFloat) {
  // A shuffled ramp: no ties, so every window has one maximum.
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Generator gen(7);
  return (randperm(n, gen).to(dtype) * 0.25 - 3.0).reshape(sizes);
}

}  // namespace

TEST(PoolModules, MaxPoolForwardWithIndicesMatchesFunctional) {
  const Tensor x = pool_distinct({2, 3, 7, 6});
  nn::MaxPool2d pool(nn::MaxPool2dOptions(3).stride(2).padding(1));
  auto [y, idx] = pool->forward_with_indices(x);
  auto [fy, fidx] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
  expect_same(y, fy, "values");
  expect_same(idx, fidx, "indices");
  EXPECT_EQ(idx.dtype(), kLong);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 3, 4, 3}));
  expect_same(pool(x), y, "forward");
  // Each index points at its value inside the (n, c) plane.
  const Tensor flat = x.flatten(2);
  expect_same(flat.gather(2, idx.flatten(2)).view(y.sizes()), y, "gathered");
}

TEST(PoolModules, ForwardsMatchFunctionals) {
  const Tensor x1 = pool_distinct({2, 3, 9}), x2 = pool_distinct({2, 3, 7, 8});
  const Tensor x3 = pool_distinct({1, 2, 5, 6, 4});
  expect_same(nn::AvgPool1d(3)(x1), F::avg_pool1d(x1, F::AvgPool1dFuncOptions(3)), "avg1d");
  expect_same(nn::AvgPool2d(nn::AvgPool2dOptions(3).divisor_override(2))(x2),
              F::avg_pool2d(x2, F::AvgPool2dFuncOptions(3).divisor_override(2)), "avg2d");
  expect_same(nn::AvgPool3d(2)(x3), F::avg_pool3d(x3, F::AvgPool3dFuncOptions(2)), "avg3d");
  expect_same(nn::MaxPool1d(2)(x1), F::max_pool1d(x1, F::MaxPool1dFuncOptions(2)), "max1d");
  expect_same(nn::MaxPool3d(2)(x3), F::max_pool3d(x3, F::MaxPool3dFuncOptions(2)), "max3d");
  expect_same(nn::AdaptiveAvgPool2d(ExpandingArrayWithOptionalElem<2>({3, std::nullopt}))(x2),
              F::adaptive_avg_pool2d(x2, F::AdaptiveAvgPool2dFuncOptions({3, 8})), "aavg2d");
  EXPECT_EQ(nn::AdaptiveMaxPool3d(2)(x3).sizes(), IntArrayRef({1, 2, 2, 2, 2}));
  auto [am, ai] = nn::AdaptiveMaxPool1d(4)->forward_with_indices(x1);
  expect_same(am, F::adaptive_max_pool1d(x1, F::AdaptiveMaxPool1dFuncOptions(4)), "amax1d");
  EXPECT_EQ(ai.dtype(), kLong);
  const Tensor pos = x2.abs() + 0.5;
  expect_same(nn::LPPool2d(2.0, 2)(pos), F::lp_pool2d(pos, F::LPPool2dFuncOptions(2.0, 2)), "lp2d");
  // lp_pool with p = 1 over positive values is the window sum.
  expect_same(nn::LPPool1d(1.0, 3)(x1.abs()),
              F::avg_pool1d(x1.abs(), F::AvgPool1dFuncOptions(3)) * 3.0, "lp1 is sum");
}

TEST(PoolModules, PrettyPrintAsLibTorch) {
  EXPECT_EQ(printed(*nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2))),
            "ember::nn::MaxPool2d(kernel_size=[3, 3], stride=[2, 2], padding=[0, 0], "
            "dilation=[1, 1], ceil_mode=false)");
  EXPECT_EQ(printed(*nn::AvgPool1d(3)), "ember::nn::AvgPool1d(kernel_size=3, stride=3, padding=0)");
  EXPECT_EQ(printed(*nn::AdaptiveAvgPool2d(ExpandingArrayWithOptionalElem<2>({5, std::nullopt}))),
            "ember::nn::AdaptiveAvgPool2d(output_size=[5, None])");
  EXPECT_EQ(printed(*nn::AdaptiveMaxPool1d(4)), "ember::nn::AdaptiveMaxPool1d(output_size=4)");
  EXPECT_EQ(printed(*nn::MaxUnpool3d(2)),
            "ember::nn::MaxUnpool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0])");
  EXPECT_EQ(printed(*nn::LPPool2d(2.0, 3)),
            "ember::nn::LPPool2d(norm_type=2, kernel_size=[3, 3], stride=[3, 3], "
            "ceil_mode=false)");
  EXPECT_EQ(printed(*nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_size(3))),
            "ember::nn::FractionalMaxPool2d()");
}

TEST(PoolModules, HaveNoState) {
  nn::MaxPool2d pool(2);
  nn::AdaptiveAvgPool2d adaptive(1);
  EXPECT_TRUE(pool->parameters().empty());
  EXPECT_TRUE(pool->buffers().empty());
  EXPECT_TRUE(adaptive->named_parameters().is_empty());
  // train/eval changes nothing.
  const Tensor x = pool_distinct({1, 2, 4, 4});
  const Tensor a = pool(x);
  pool->eval();
  expect_same(pool(x), a, "eval");
}

TEST(PoolModules, MaxUnpoolInvertsMaxPool) {
  const Tensor x = pool_distinct({2, 3, 6, 8});
  nn::MaxPool2d pool(2);
  nn::MaxUnpool2d unpool(2);
  auto [y, idx] = pool->forward_with_indices(x);
  const Tensor back = unpool(y, idx);
  EXPECT_EQ(back.sizes(), x.sizes());
  // The maxima are back in place, everything else is zero.
  const Tensor mask = back != 0;
  expect_same(back, where(mask, x, zeros_like(x)), "unpooled");
  EXPECT_EQ(mask.sum().item<int64_t>(), y.numel());
  // An odd input size needs output_size to come back.
  const Tensor odd = pool_distinct({1, 2, 7, 9});
  auto [oy, oi] = pool->forward_with_indices(odd);
  EXPECT_EQ(unpool(oy, oi, std::vector<int64_t>{7, 9}).sizes(), IntArrayRef({1, 2, 7, 9}));
  EXPECT_EQ(unpool(oy, oi, std::vector<int64_t>{1, 2, 7, 9}).sizes(), IntArrayRef({1, 2, 7, 9}));
}

TEST(PoolModules, FractionalMaxPoolIsSeededByEmberGenerator) {
  const Tensor x = pool_distinct({2, 3, 10, 9});
  nn::FractionalMaxPool2d pool(nn::FractionalMaxPool2dOptions(2).output_ratio(0.5));
  manual_seed(11);
  auto [a, ai] = pool->forward_with_indices(x);
  manual_seed(11);
  auto [b, bi] = pool->forward_with_indices(x);
  expect_same(a, b, "same seed, same windows");
  expect_same(ai, bi, "same indices");
  EXPECT_EQ(a.sizes(), IntArrayRef({2, 3, 5, 4}));
  // With explicit samples the result does not depend on the generator.
  const Tensor u = full({2, 3, 2}, 0.3);
  nn::FractionalMaxPool2d fixed(nn::FractionalMaxPool2dOptions(2)
                                    .output_size(std::array<int64_t, 2>{4, 4})
                                    ._random_samples(u));
  manual_seed(1);
  const Tensor c = fixed(x);
  manual_seed(2);
  expect_same(fixed(x), c, "explicit samples");
  nn::FractionalMaxPool3d pool3(nn::FractionalMaxPool3dOptions(2).output_size(2));
  EXPECT_EQ(pool3(pool_distinct({1, 2, 5, 6, 5})).sizes(), IntArrayRef({1, 2, 2, 2, 2}));
}

TEST(PoolModules, FractionalMaxPoolChecksItsOptions) {
  expect_error<ValueError>([] { nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2)); },
                           {"FractionalMaxPool2d requires specifying either an output_size or "
                            "an output_ratio"});
  expect_error<ValueError>(
      [] {
        nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_size(3).output_ratio(0.5));
      },
      {"only one of output_size and output_ratio"});
  expect_error<ValueError>(
      [] { nn::FractionalMaxPool3d(nn::FractionalMaxPool3dOptions(2).output_ratio(1.5)); },
      {"output_ratio must be between 0 and 1", "1.5"});
}

TEST(PoolModules, MaxKeepsTheFirstOfTiesAndPropagatesNaN) {
  // PyTorch's rule: a later equal value does not take over; a NaN does, and stays.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = tensor({1.0, 3.0, 3.0, 2.0, nan, 5.0, 0.0, 0.0}).view({1, 1, 8});
  auto [y, idx] = max_pool1d_with_indices(x, 4);  // the ATen form takes a bare int, as LibTorch's
  EXPECT_EQ(y[0][0][0].item<float>(), 3.0f);
  EXPECT_EQ(idx[0][0][0].item<int64_t>(), 1);
  EXPECT_TRUE(std::isnan(y[0][0][1].item<float>()));
  EXPECT_EQ(idx[0][0][1].item<int64_t>(), 4);
  // The channels-last (vectorised) loop follows the same rule.
  const Tensor x4 =
      x.view({1, 1, 1, 8}).expand({1, 3, 1, 8}).contiguous(MemoryFormat::ChannelsLast);
  auto [y4, i4] = max_pool2d_with_indices(x4, {1, 4});
  expect_same(i4.flatten(), tensor({1, 4, 1, 4, 1, 4}, kLong), "channels-last indices");
  EXPECT_TRUE(std::isnan(y4[0][2][0][1].item<float>()));
}
