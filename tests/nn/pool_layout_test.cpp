// Pooling on channels-last and bfloat16 inputs, zero-size inputs with backward, double backward,
// and the error messages of bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;

namespace {

Tensor pool_ramp(IntArrayRef sizes, ScalarType dtype = kFloat, uint64_t seed = 3) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Generator gen(seed);
  return (randperm(n, gen).to(kDouble) * 0.125 - 2.0).reshape(sizes).to(dtype);
}

// |actual - expected| <= (terms + 1) eps_f32 * bound elementwise, where bound holds the sum of
// the magnitudes of the at most `terms` terms each element of `expected` adds up: each of two
// float32 sums of them, in any order and with a division or a reciprocal multiply, lies within
// (terms + 1) / 2 eps of the exact value times that bound.
void expect_within_term_bound(const Tensor& actual, const Tensor& expected, const Tensor& bound,
                              int64_t terms, const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const double eps = std::numeric_limits<float>::epsilon();
  const Tensor err = (actual.to(kDouble) - expected.to(kDouble)).abs();
  EXPECT_TRUE(err.le(bound * (double(terms + 1) * eps)).all().item<bool>())
      << what << ": largest error " << err.max().item<double>() << "\nactual:\n"
      << actual << "\nexpected:\n"
      << expected;
}

// Runs fn on x and on x laid out as `fmt`; the output must keep `fmt`, and outputs and input
// gradients must agree. Exactly by default: the max pools select values and add the same
// gradients in the same order whatever the strides. Averaging pools (`window` > 0, the taps of
// one window, which bounds the terms of each output and of each input's gradient) may run another
// oneDNN kernel per layout (on AVX2: simple_nchw against jit:avx2 for channels-last), which
// rounds its sums differently; they must agree within the bound of the terms they add, taken
// from the same pooling of |x| and |g| in float64.
void expect_layout_kept(const std::function<Tensor(const Tensor&)>& fn, const Tensor& x,
                        MemoryFormat fmt, const std::string& what, int64_t window = 0) {
  SCOPED_TRACE(what);
  const Tensor a = x.detach().clone().requires_grad_(true);
  const Tensor b = x.detach().contiguous(fmt).requires_grad_(true);
  const Tensor ya = fn(a), yb = fn(b);
  EXPECT_TRUE(yb.is_contiguous(fmt)) << "output lost the input's layout: " << yb.strides();
  const Tensor g = pool_ramp(ya.sizes(), x.dtype(), 9);
  ya.backward(g);
  yb.backward(g.contiguous(fmt));
  if (window == 0) {
    expect_same(yb.contiguous(), ya, "values");
    expect_same(b.grad().contiguous(), a.grad(), "input gradient");
    return;
  }
  const Tensor magnitudes = x.detach().abs().to(kDouble).requires_grad_(true);
  const Tensor y_bound = fn(magnitudes);
  y_bound.backward(g.abs().to(kDouble));
  expect_within_term_bound(yb.contiguous(), ya, y_bound.detach(), window, "values");
  expect_within_term_bound(b.grad().contiguous(), a.grad(), magnitudes.grad(), window,
                           "input gradient");
}

}  // namespace

TEST(PoolLayout, ChannelsLastInputsKeepTheirLayout) {
  const Tensor x = pool_ramp({2, 5, 7, 6});
  const auto cl = MemoryFormat::ChannelsLast;
  expect_layout_kept(
      [](const Tensor& t) {
        return max_pool2d(t, {3, 3}, {2, 2}, {1, 1});
      },
      x, cl, "max_pool2d");
  expect_layout_kept(
      [](const Tensor& t) {
        return avg_pool2d(t, {2, 3}, {1, 2}, {1, 1});
      },
      x, cl, "avg_pool2d", /*window=*/6);
  expect_layout_kept(
      [](const Tensor& t) {
        return adaptive_avg_pool2d(t, {3, 4});
      },
      x, cl, "adaptive_avg_pool2d");
  expect_layout_kept(
      [](const Tensor& t) {
        return std::get<0>(adaptive_max_pool2d(t, {4, 2}));
      },
      x, cl, "adaptive_max_pool2d");
  expect_layout_kept(
      [](const Tensor& t) {
        return std::get<0>(fractional_max_pool2d(t, {2, 2}, {3, 3}, full({2, 5, 2}, 0.4)));
      },
      x, cl, "fractional_max_pool2d");
  const Tensor x3 = pool_ramp({2, 3, 4, 5, 6});
  expect_layout_kept(
      [](const Tensor& t) {
        return max_pool3d(t, {2, 2, 2});
      },
      x3, MemoryFormat::ChannelsLast3d, "max_pool3d");
  expect_layout_kept(
      [](const Tensor& t) {
        return avg_pool3d(t, {3, 2, 2}, {1, 2, 2}, {1, 0, 1});
      },
      x3, MemoryFormat::ChannelsLast3d, "avg_pool3d", /*window=*/12);
}

TEST(PoolLayout, ChannelsLastIndicesUnpoolBack) {
  const Tensor x = pool_ramp({2, 4, 6, 6}).contiguous(MemoryFormat::ChannelsLast);
  auto [y, idx] = max_pool2d_with_indices(x, {2, 2});
  EXPECT_TRUE(idx.is_contiguous(MemoryFormat::ChannelsLast));
  auto [ry, ridx] = max_pool2d_with_indices(x.contiguous(), {2, 2});
  expect_same(idx.contiguous(), ridx, "indices do not depend on the layout");
  expect_same(max_unpool2d(y, idx, {6, 6}).contiguous(), max_unpool2d(ry, ridx, {6, 6}), "unpool");
}

TEST(PoolLayout, BFloat16MatchesFloatReference) {
  const Tensor x = pool_ramp({2, 3, 9, 8}, kBFloat16);  // exact in bfloat16 (multiples of 1/8)
  const Tensor xf = x.to(kFloat);
  auto [y, idx] = max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1});
  auto [yf, idxf] = max_pool2d_with_indices(xf, {3, 3}, {2, 2}, {1, 1});
  EXPECT_EQ(y.dtype(), kBFloat16);
  expect_same(y.to(kFloat), yf, "max is exact");
  expect_same(idx, idxf, "indices");
  const Tensor a = avg_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  EXPECT_TRUE(allclose(a.to(kFloat), avg_pool2d(xf, {3, 3}, {2, 2}, {1, 1}), 1e-2, 1e-2));
  // Channels-last bfloat16 too, with backward.
  const Tensor xc = x.contiguous(MemoryFormat::ChannelsLast).requires_grad_(true);
  const Tensor yc = max_pool2d(xc, {2, 2});
  EXPECT_TRUE(yc.is_contiguous(MemoryFormat::ChannelsLast));
  yc.sum().backward();
  EXPECT_EQ(xc.grad().dtype(), kBFloat16);
  EXPECT_EQ(xc.grad().sum().item<double>(), static_cast<double>(yc.numel()));
}

TEST(PoolLayout, ZeroBatchRunsForwardAndBackward) {
  const Tensor x = zeros({0, 3, 6, 6}).requires_grad_(true);
  const Tensor y = max_pool2d(x, {2, 2}) + avg_pool2d(x, {2, 2}) + adaptive_avg_pool2d(x, {3, 3}) +
                   std::get<0>(adaptive_max_pool2d(x, {3, 3}));
  EXPECT_EQ(y.sizes(), IntArrayRef({0, 3, 3, 3}));
  y.sum().backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
}

TEST(PoolLayout, UnbatchedInputsGiveUnbatchedOutputs) {
  const Tensor x = pool_ramp({3, 7, 5});
  expect_same(max_pool2d(x, {2, 2}), max_pool2d(x.unsqueeze(0), {2, 2}).squeeze(0), "max");
  expect_same(avg_pool1d(x[0], {3}), avg_pool1d(x, {3})[0], "avg1d");
  EXPECT_EQ(adaptive_avg_pool2d(x, {2, 2}).sizes(), IntArrayRef({3, 2, 2}));
}

TEST(PoolAutograd, DoubleBackward) {
  const auto opts = [] {
    autograd::GradcheckOptions o;
    o.atol = 1e-6;
    return o;
  }();
  const Tensor x = pool_ramp({1, 2, 5, 6}, kDouble).requires_grad_(true);
  auto check = [&](const char* what, const autograd::GradcheckFn& fn) {
    SCOPED_TRACE(what);
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}, {}, opts));
  };
  check("max_pool2d", [](const autograd::variable_list& v) {
    return autograd::variable_list{max_pool2d(v[0], {3, 3}, {2, 2}, {1, 1})};
  });
  check("avg_pool2d", [](const autograd::variable_list& v) {
    return autograd::variable_list{avg_pool2d(v[0], {3, 2}, {2, 1}, {1, 1}, true, false)};
  });
  check("adaptive_avg_pool2d", [](const autograd::variable_list& v) {
    return autograd::variable_list{adaptive_avg_pool2d(v[0], {3, 4})};
  });
  check("adaptive_max_pool2d", [](const autograd::variable_list& v) {
    return autograd::variable_list{std::get<0>(adaptive_max_pool2d(v[0], {2, 4}))};
  });
  check("lp_pool2d", [](const autograd::variable_list& v) {
    return autograd::variable_list{F::lp_pool2d(v[0].abs() + 1.0, F::LPPool2dFuncOptions(2.0, 2))};
  });
  const Tensor idx = std::get<1>(max_pool2d_with_indices(pool_ramp({1, 2, 10, 12}), {2, 2}));
  const Tensor small = pool_ramp({1, 2, 5, 6}, kDouble, 5).requires_grad_(true);
  EXPECT_TRUE(autograd::gradgradcheck(
      [&](const autograd::variable_list& v) {
        return autograd::variable_list{max_unpool2d(v[0], idx, {10, 12})};
      },
      {small}, {}, opts));
}

TEST(PoolErrors, WrongRankAndDtype) {
  expect_error(
      [] {
        max_pool2d(zeros({4, 4}), {2, 2});
      },
      {"max_pool2d: expected a 3-D (unbatched) or 4-D (batched) input, but got a 2-D "
       "input [4, 4]"});
  expect_error(
      [] {
        F::avg_pool3d(zeros({2, 4, 4}), F::AvgPool3dFuncOptions(2));
      },
      {"avg_pool3d: expected a 4-D (unbatched) or 5-D (batched) input", "[2, 4, 4]"});
  expect_error(
      [] {
        max_pool2d(zeros({2, 0, 4, 4}), {2, 2});
      },
      {"max_pool2d: expected an input with non-zero sizes in every dim but the batch dim",
       "[2, 0, 4, 4]"});
  expect_error<TypeError>(
      [] {
        max_pool2d(zeros({1, 1, 4, 4}, kLong), {2, 2});
      },
      {"max_pool2d: expected a floating input", "int64"});
}

TEST(PoolErrors, WindowArguments) {
  expect_error<ValueError>(
      [] {
        max_pool2d(zeros({1, 1, 8, 8}), {3, 3}, {1, 1}, {2, 2});
      },
      {"max_pool2d: padding should be at most half of kernel_size, but got padding [2, 2] and "
       "kernel_size [3, 3]"});
  expect_error<ValueError>(
      [] {
        avg_pool2d(zeros({1, 1, 8, 8}), {0, 2});
      },
      {"avg_pool2d: kernel_size must be greater than zero, but got [0, 2]"});
  expect_error<ValueError>(
      [] {
        max_pool1d(zeros({1, 1, 8}), {2}, {0});
      },
      {"max_pool1d: stride must be greater than zero"});
  expect_error<ValueError>(
      [] {
        max_pool2d(zeros({1, 1, 8, 8}), {2, 2, 2});
      },
      {"max_pool2d: kernel_size must be a single int or a list of 2 ints", "[2, 2, 2]"});
  expect_error(
      [] {
        max_pool2d(zeros({1, 3, 2, 2}), {3, 3});
      },
      {"max_pool2d: output size would be empty: an input of spatial size 2x2 gives [0, 0] with "
       "kernel_size [3, 3] (dilated: [3, 3]), stride [3, 3], padding [0, 0]"});
  expect_error(
      [] {
        max_pool2d(zeros({1, 3, 6, 6}), {3, 3}, {1, 1}, {0, 0}, {3, 3});
      },
      {"output size would be empty", "(dilated: [7, 7])"});
  expect_error<ValueError>(
      [] {
        avg_pool2d(zeros({1, 1, 4, 4}), {2, 2}, {}, {0, 0}, false, true, 0);
      },
      {"avg_pool2d: divisor_override must not be zero"});
  expect_error<ValueError>(
      [] {
        adaptive_avg_pool2d(zeros({1, 1, 4, 4}), {2});
      },
      {"adaptive_avg_pool2d: output_size must have 2 elements, but got [2]"});
}

TEST(PoolErrors, UnpoolAndFractional) {
  const Tensor v = ones({1, 1, 2, 2});
  const Tensor bad = full({1, 1, 2, 2}, 20, kLong);
  expect_error<IndexError>(
      [&] {
        max_unpool2d(v, bad, {4, 4});
      },
      {"max_unpool2d: found an invalid max index: 20", "the output's spatial size is 4x4",
       "[0, 16)"});
  expect_error<TypeError>(
      [&] {
        max_unpool2d(v, bad.to(kInt), {4, 4});
      },
      {"max_unpool2d: indices must be int64, but got int32"});
  expect_error(
      [&] {
        max_unpool2d(v, zeros({1, 1, 2, 3}, kLong), {4, 4});
      },
      {"max_unpool2d: indices [1, 1, 2, 3] must have the shape of the input [1, 1, 2, 2]"});
  expect_error<ValueError>(
      [&] {
        F::max_unpool2d(v, bad,
                        F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 4}));
      },
      {"max_unpool2d: invalid output_size [7, 4] (dim 0 must be between 2 and 6"});
  expect_error<ValueError>(
      [] {
        fractional_max_pool2d(zeros({1, 1, 5, 5}), {3, 3}, {4, 4}, full({1, 1, 2}, 0.5));
      },
      {"fractional_max_pool2d: kernel_size 3 is too large for the input size 5 and output_size 4"});
  expect_error(
      [] {
        fractional_max_pool2d(zeros({2, 1, 5, 5}), {2, 2}, {2, 2}, full({1, 1, 2}, 0.5));
      },
      {"fractional_max_pool2d: random_samples must have shape [2, 1, 2]", "[1, 1, 2]"});
  expect_error<TypeError>(
      [] {
        fractional_max_pool2d(zeros({1, 1, 5, 5}), {2, 2}, {2, 2},
                              full({1, 1, 2}, 0.5, TensorOptions().dtype(kDouble)));
      },
      {"random_samples must have the input's dtype float32, but got float64"});
}

TEST(PoolErrors, RandomSamplesOutsideTheUnitIntervalAndInvalidIndexValues) {
  // A sample outside [0, 1) would place a window outside the input: refused, NaN included.
  for (double u : {1.0, -0.25, 1e30, std::nan("")})
    expect_error<ValueError>(
        [u] {
          fractional_max_pool2d(zeros({1, 1, 5, 5}), {2, 2}, {2, 2}, full({1, 1, 2}, u));
        },
        {"fractional_max_pool2d: random_samples must lie in [0, 1)"});
  // The most negative int64 is an invalid index like any other (it once was the kernel's
  // "nothing found" marker).
  const Tensor v = ones({1, 1, 2, 2});
  expect_error<IndexError>(
      [&] {
        max_unpool2d(v, full({1, 1, 2, 2}, std::numeric_limits<int64_t>::min(), kLong), {4, 4});
      },
      {"max_unpool2d: found an invalid max index: -9223372036854775808"});
}

TEST(PoolLayout, NegativeDivisorOverrideDividesAsPyTorch) {
  // PyTorch refuses only a zero divisor; a negative one divides (sum / divisor), also backward.
  const Tensor x =
      arange(16, TensorOptions().dtype(kDouble)).reshape({1, 1, 4, 4}).requires_grad_();
  const Tensor y = F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).divisor_override(-2));
  const Tensor expected = x.detach()
                              .reshape({1, 1, 2, 2, 2, 2})
                              .permute({0, 1, 2, 4, 3, 5})
                              .reshape({1, 1, 2, 2, 4})
                              .sum(-1)
                              .div(-2);
  EXPECT_TRUE(y.detach().equal(expected));
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(full({1, 1, 4, 4}, -0.5, TensorOptions().dtype(kDouble))));
}

TEST(PoolLayout, MaxPoolKernelPathsAgreeOnTiesNaNAndPadding) {
  // Dense planes, planes with row padding (a slice of a wider tensor: other element strides in
  // the planar loop) and channels-last inputs (a loop of its own); with many ties, NaNs and -inf
  // they must give the same values and the same indices (the first maximum, or the last NaN, in
  // PyTorch's tap order), and each index must point at its value.
  manual_seed(11);
  Tensor wide = randint(0, 4, {2, 3, 9, 13}, TensorOptions().dtype(kFloat));
  wide.index_put_({0, 1, 2, 3}, std::numeric_limits<float>::quiet_NaN());
  wide.index_put_({1, 2, 4, 5}, std::numeric_limits<float>::quiet_NaN());
  wide.index_put_({1, 0, 0, 0}, -std::numeric_limits<float>::infinity());
  const Tensor dense = wide.slice(3, 0, 11).contiguous();
  const Tensor padded_rows = wide.slice(3, 0, 11);
  const Tensor channels_last = dense.contiguous(MemoryFormat::ChannelsLast);
  ASSERT_FALSE(padded_rows.is_contiguous());
  struct Case {
    std::vector<int64_t> k, s, p, d;
    bool ceil;
  };
  for (const Case& c :
       {Case{{2, 2}, {}, {0, 0}, {1, 1}, false}, Case{{3, 3}, {2, 2}, {1, 1}, {1, 1}, false},
        Case{{3, 2}, {2, 3}, {1, 1}, {1, 1}, true}, Case{{3, 3}, {1, 2}, {1, 0}, {2, 3}, false},
        Case{{2, 3}, {3, 2}, {1, 1}, {2, 1}, true}}) {
    SCOPED_TRACE("kernel " + std::to_string(c.k[0]) + "x" + std::to_string(c.k[1]));
    auto [v0, i0] = max_pool2d_with_indices(dense, c.k, c.s, c.p, c.d, c.ceil);
    auto [v1, i1] = max_pool2d_with_indices(padded_rows, c.k, c.s, c.p, c.d, c.ceil);
    auto [v2, i2] = max_pool2d_with_indices(channels_last, c.k, c.s, c.p, c.d, c.ceil);
    EXPECT_TRUE(equal(i1, i0)) << "indices, strided vs dense planes";
    EXPECT_TRUE(equal(i2.contiguous(), i0)) << "indices, channels-last vs planar";
    EXPECT_TRUE(allclose(v1, v0, 0, 0, /*equal_nan=*/true)) << "values, strided vs dense planes";
    EXPECT_TRUE(allclose(v2.contiguous(), v0, 0, 0, /*equal_nan=*/true))
        << "values, channels-last vs planar";
    // Each index names an input element holding the reported value.
    const Tensor picked = dense.flatten(2).gather(2, i0.flatten(2)).view_as(v0);
    EXPECT_TRUE(allclose(picked, v0, 0, 0, /*equal_nan=*/true)) << "indices point at the maxima";
  }
  // 3-d: dense planes against a slice with padded rows.
  const Tensor wide3 = wide.view({2, 3, 9, 13, 1}).expand({2, 3, 9, 13, 3}).contiguous();
  const Tensor d3 = wide3.slice(3, 0, 11).contiguous(), r3 = wide3.slice(3, 0, 11);
  auto [v3, i3] = max_pool3d_with_indices(d3, {2, 3, 2}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, true);
  auto [v4, i4] = max_pool3d_with_indices(r3, {2, 3, 2}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, true);
  EXPECT_TRUE(equal(i4, i3));
  EXPECT_TRUE(allclose(v4, v3, 0, 0, /*equal_nan=*/true));
}

TEST(PoolLayout, TwoByTwoMaxPoolPathAgreesWithThePlanarLoop) {
  // 2x2 windows at stride 2 over dense planes of even height and width take a path of their own
  // (kernels/cpu/pool_max2x2.cpp, max_pool_2x2); a slice with padded rows takes the planar loop
  // and channels-last its own. Values from {0..2}, NaNs in both rows of a window and -inf windows:
  // the same values and indices (first maximum, last NaN, in PyTorch's tap order) from all three.
  // Widths 12, 36 and 70 give output rows of 6, 18 and 35: one partial 16-wide step of the
  // AVX-512 kernel, then whole steps and a partial one.
  manual_seed(12);
  // float64 takes the portable two-pass loop of the same file.
  for (ScalarType dtype : {kFloat, kDouble})
    for (int64_t width : {12, 36, 70})
      for (int64_t batch : {1, 3}) {
        Tensor wide = randint(0, 3, {batch, 5, 8, width + 2}, TensorOptions().dtype(dtype));
        const float nan = std::numeric_limits<float>::quiet_NaN();
        wide.index_put_({0, 1, 2, 3}, nan);
        wide.index_put_({0, 1, 3, 2}, nan);  // the same window's bottom row: the last NaN wins
        wide.index_put_({0, 2, 4, 4}, nan);
        wide.index_put_({0, 3, 0, 0}, -std::numeric_limits<float>::infinity());
        wide.index_put_({0, 3, 0, 1}, -std::numeric_limits<float>::infinity());
        wide.index_put_({0, 3, 1, 0}, -std::numeric_limits<float>::infinity());
        wide.index_put_({0, 3, 1, 1}, -std::numeric_limits<float>::infinity());
        const Tensor dense = wide.slice(3, 0, width).contiguous();
        const Tensor padded_rows = wide.slice(3, 0, width);
        const Tensor channels_last = dense.contiguous(MemoryFormat::ChannelsLast);
        auto [v0, i0] = max_pool2d_with_indices(dense, {2, 2}, {2, 2});
        auto [v1, i1] = max_pool2d_with_indices(padded_rows, {2, 2}, {2, 2});
        auto [v2, i2] = max_pool2d_with_indices(channels_last, {2, 2}, {2, 2});
        EXPECT_TRUE(equal(i0, i1)) << "indices, 2x2 path vs planar loop";
        EXPECT_TRUE(equal(i0, i2.contiguous())) << "indices, 2x2 path vs channels-last";
        EXPECT_TRUE(allclose(v0, v1, 0, 0, /*equal_nan=*/true)) << "values, 2x2 path vs planar";
        EXPECT_TRUE(allclose(v0, v2.contiguous(), 0, 0, /*equal_nan=*/true));
        {
          // Without autograd no indices are asked for: the same path, writing values only.
          NoGradGuard no_grad;
          EXPECT_TRUE(allclose(max_pool2d(dense, {2, 2}, {2, 2}), v0, 0, 0, /*equal_nan=*/true))
              << "values without indices";
        }
        EXPECT_EQ(i0.index({0, 1, 1, 1}).item<int64_t>(), 3 * width + 2);  // the later NaN
        EXPECT_EQ(i0.index({0, 3, 0, 0}).item<int64_t>(), 0);  // all -inf: the first tap
        const Tensor picked = dense.flatten(2).gather(2, i0.flatten(2)).view_as(v0);
        EXPECT_TRUE(allclose(picked, v0, 0, 0, /*equal_nan=*/true))
            << "indices point at the maxima";
        // Backward scatters through the indices either way.
        const Tensor g = randn(v0.sizes(), dtype);
        Tensor a = dense.clone().requires_grad_(), b = wide.clone().requires_grad_();
        max_pool2d(a, {2, 2}, {2, 2}).backward(g);
        max_pool2d(b.slice(3, 0, width), {2, 2}, {2, 2}).backward(g);  // the planar loop's indices
        EXPECT_TRUE(equal(a.grad(), b.grad().slice(3, 0, width))) << "width " << width;
      }
}

TEST(PoolLayout, TwoByTwoBackwardFallsBackForIndicesOutsideTheirWindow) {
  // 3x3 windows at stride 2 with padding 1 also halve even sizes, so their backward looks like the
  // 2x2 one to the scatter, but an index may lie outside its 2x2 block and windows overlap: the
  // dense 2x2 pass must notice and leave it to the accumulating loop. Integer-valued gradients
  // make float32 sums exact, so float64 (the portable loop throughout) must agree exactly.
  manual_seed(13);
  const Tensor x = randn({2, 3, 8, 34});
  const Tensor g = randint(-4, 5, {2, 3, 4, 17}, TensorOptions().dtype(kFloat));
  Tensor a = x.clone().requires_grad_(), b = x.to(kDouble).requires_grad_();
  max_pool2d(a, {3, 3}, {2, 2}, {1, 1}).backward(g);
  max_pool2d(b, {3, 3}, {2, 2}, {1, 1}).backward(g.to(kDouble));
  EXPECT_TRUE(equal(a.grad(), b.grad().to(kFloat)));
  EXPECT_GT(a.grad().abs().sum().item<float>(), 0.0f);
}

TEST(PoolLayout, ConcurrentAvgPoolsShareTheCachedPrimitives) {
  // Average pooling runs on cached oneDNN primitives; threads running the same shapes use them
  // at once with their own scratch space, and every thread's result (forward and input
  // gradient, float32 and bfloat16) equals the single-threaded one.
  for (ScalarType dtype : {kFloat, kBFloat16}) {
    SCOPED_TRACE(std::string("dtype ") + to_string(dtype));
    const Tensor x = pool_ramp({4, 16, 13, 13}, dtype);
    const Tensor g = pool_ramp({4, 16, 7, 7}, dtype, 5);
    auto run = [&](Tensor* y, Tensor* gx) {
      const Tensor xi = x.detach().requires_grad_(true);
      *y = avg_pool2d(xi, {3, 3}, {2, 2}, {1, 1});
      y->backward(g);
      *gx = xi.grad();
    };
    Tensor ref, ref_g;
    run(&ref, &ref_g);
    std::vector<Tensor> ys(4), gs(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < ys.size(); ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 5; ++i) run(&ys[t], &gs[t]);
      });
    for (std::thread& th : threads) th.join();
    for (size_t t = 0; t < ys.size(); ++t) {
      EXPECT_TRUE(ys[t].equal(ref)) << "thread " << t;
      EXPECT_TRUE(gs[t].equal(ref_g)) << "thread " << t;
    }
  }
}
