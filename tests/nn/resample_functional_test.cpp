// F::interpolate, F::grid_sample, F::affine_grid and their ATen-style functions beyond the golden
// table (tests/nn/nn_ops_resample.cpp): error texts, channels-last layouts, zero-size inputs,
// bfloat16, double backward, and properties every mode must keep.
#include <gtest/gtest.h>

#include "ember/nn/functional/upsampling.h"
#include "ember/nn/functional/vision.h"
#include "ember/ops/nn_resample.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;

namespace {

using Sizes = std::vector<int64_t>;
using Scales = std::vector<double>;

F::InterpolateFuncOptions sized(Sizes s, F::InterpolateFuncOptions::mode_t mode) {
  return F::InterpolateFuncOptions().size(std::move(s)).mode(mode);
}

// ---- interpolate errors ----

TEST(InterpolateErrors, SizeAndScaleFactor) {
  Tensor x = randn({1, 2, 4, 4});
  expect_error<ValueError>(
      [&] {
        F::interpolate(x, F::InterpolateFuncOptions().size(Sizes{2, 2}).scale_factor(Scales{2}));
      },
      {"interpolate: exactly one of size and scale_factor must be given, but got both"});
  expect_error<ValueError>(
      [&] { F::interpolate(x); },
      {"interpolate: exactly one of size and scale_factor must be given, but got neither"});
  expect_error<ValueError>(
      [&] {
        F::interpolate(x, sized({8, 8}, kBilinear).recompute_scale_factor(true));
      },
      {"interpolate: recompute_scale_factor is not meaningful with an explicit size"});
  expect_error(
      [&] {
        F::interpolate(x, F::InterpolateFuncOptions().scale_factor(Scales{2, 2, 2}));
      },
      {"interpolate: scale_factor must have 1 or 2 elements (one per spatial dim of input [1, 2, "
       "4, 4]), but got 3 elements"});
  expect_error(
      [&] {
        F::interpolate(x, sized({0, 3}, kNearest));
      },
      {"upsample_nearest2d: input and output spatial sizes must be greater than 0, but "
       "got input [1, 2, 4, 4] and output_size [0, 3]"});
}

TEST(InterpolateErrors, RankForTheMode) {
  expect_error(
      [&] {
        F::interpolate(randn({2, 3, 5}), sized({4, 4}, kBilinear));
      },
      {"interpolate: mode bilinear expects a 4-D input [N, C, H, W], but got a 3-D "
       "input [2, 3, 5]"});
  expect_error(
      [&] {
        F::interpolate(randn({2, 3, 5, 5}), sized({4}, kLinear));
      },
      {"interpolate: mode linear expects a 3-D input [N, C, W], but got a 4-D input"});
  expect_error(
      [&] {
        F::interpolate(randn({2, 3, 5, 5}), sized({4, 4, 4}, kTrilinear));
      },
      {"interpolate: mode trilinear expects a 5-D input [N, C, D, H, W]"});
  expect_error(
      [&] {
        F::interpolate(randn({2, 3}), sized({4}, kNearest));
      },
      {"interpolate: expected a 3-D, 4-D or 5-D input [N, C, *spatial], but got a 2-D "
       "input [2, 3]"});
  expect_error(
      [&] {
        upsample_bilinear2d(randn({1, 2, 3}), {4, 4}, false);
      },
      {"upsample_bilinear2d: expected a 4-D input [N, C, H, W], but got a 3-D input"});
}

TEST(InterpolateErrors, AlignCornersAndAntialiasOnlyWhereMeaningful) {
  Tensor x = randn({1, 2, 4, 4});
  expect_error<ValueError>(
      [&] {
        F::interpolate(x, sized({8, 8}, kNearest).align_corners(false));
      },
      {"interpolate: align_corners can only be set with the interpolating modes linear | "
       "bilinear | bicubic | trilinear, but got mode nearest with align_corners=false"});
  expect_error<ValueError>(
      [&] {
        F::interpolate(x, sized({2, 2}, kArea).align_corners(true));
      },
      {"but got mode area with align_corners=true"});
  expect_error<ValueError>(
      [&] {
        F::interpolate(x, sized({2, 2}, kNearest).antialias(true));
      },
      {"interpolate: antialias is only supported for the bilinear and bicubic modes on 4-D "
       "input, but got mode nearest with a 4-D input [1, 2, 4, 4]"});
  expect_error<ValueError>(
      [&] {
        F::interpolate(randn({1, 2, 4}), sized({2}, kLinear).antialias(true));
      },
      {"antialias is only supported", "mode linear with a 3-D input"});
}

TEST(InterpolateErrors, IntegerInput) {
  expect_error<TypeError>(
      [&] {
        F::interpolate(ones({1, 1, 2, 2}, kLong), sized({4, 4}, kNearest));
      },
      {"upsample_nearest2d: input must have a floating dtype, but got [1, 1, 2, 2] int64"});
}

// ---- interpolate behaviour ----

const std::vector<std::pair<const char*, F::InterpolateFuncOptions::mode_t>> kModes2d = {
    {"nearest", kNearest},
    {"nearest-exact", kNearestExact},
    {"bilinear", kBilinear},
    {"bicubic", kBicubic},
    {"area", kArea}};

TEST(Interpolate, ChannelsLastInputGivesChannelsLastOutputWithTheSameValues) {
  Tensor x = randn({2, 5, 6, 7});
  Tensor xl = x.contiguous(MemoryFormat::ChannelsLast);
  for (const auto& [name, mode] : kModes2d) {
    for (const Sizes& s : {Sizes{9, 11}, Sizes{4, 3}}) {
      SCOPED_TRACE(name);
      Tensor y = F::interpolate(x, sized(s, mode));
      Tensor yl = F::interpolate(xl, sized(s, mode));
      EXPECT_TRUE(yl.is_contiguous(MemoryFormat::ChannelsLast));
      EXPECT_TRUE(allclose(yl, y, 1e-5, 1e-6));
      // The backward of both layouts agrees too.
      Tensor a = x.clone().requires_grad_(true), b = xl.clone().requires_grad_(true);
      Tensor cot = randn(y.sizes());
      (F::interpolate(a, sized(s, mode)) * cot).sum().backward();
      (F::interpolate(b, sized(s, mode)) * cot).sum().backward();
      EXPECT_TRUE(allclose(b.grad(), a.grad(), 1e-5, 1e-5));
    }
  }
}

// A channels-last gradient runs the channels-last backward kernel; it must agree with the planar
// one, for every mode, up and down.
TEST(Interpolate, ChannelsLastGradientMatchesPlanar) {
  for (const auto& [name, mode] : kModes2d) {
    for (const Sizes& s : {Sizes{9, 11}, Sizes{4, 3}}) {
      SCOPED_TRACE(name);
      Tensor x = randn({2, 70, 6, 7}, kDouble).requires_grad_(true);  // 70: two channel blocks
      Tensor y = F::interpolate(x, sized(s, mode));
      Tensor cot = randn(y.sizes(), kDouble);
      Tensor planar = autograd::grad({y}, {x}, {cot}, /*retain_graph=*/true)[0];
      Tensor cl = autograd::grad({y}, {x}, {cot.contiguous(MemoryFormat::ChannelsLast)})[0];
      EXPECT_TRUE(cl.is_contiguous(MemoryFormat::ChannelsLast));
      EXPECT_TRUE(allclose(cl, planar, 1e-12, 1e-12));
    }
  }
}

TEST(Interpolate, ChannelsLast3dTrilinear) {
  Tensor x = randn({1, 4, 3, 4, 5});
  Tensor xl = x.contiguous(MemoryFormat::ChannelsLast3d);
  auto o = sized({5, 3, 7}, kTrilinear).align_corners(false);
  Tensor yl = F::interpolate(xl, o);
  EXPECT_TRUE(yl.is_contiguous(MemoryFormat::ChannelsLast3d));
  EXPECT_TRUE(allclose(yl, F::interpolate(x, o), 1e-5, 1e-6));
}

// Every mode's weights for one output sum to 1, so the gradient of sum(output) sums to the number
// of outputs, up or down: the backward adds every contribution (downsampling included).
TEST(Interpolate, BackwardScattersEveryWeight) {
  for (const auto& [name, mode] : kModes2d) {
    for (const Sizes& s : {Sizes{9, 11}, Sizes{3, 2}}) {
      SCOPED_TRACE(name);
      Tensor x = randn({2, 3, 5, 7}, kDouble).requires_grad_(true);
      F::interpolate(x, sized(s, mode)).sum().backward();
      EXPECT_NEAR(x.grad().sum().item<double>(), 2.0 * 3 * s[0] * s[1], 1e-9);
    }
  }
}

// Area windows of different lengths: an infinite input stays in its own windows only.
TEST(Interpolate, AreaWindowsOfDifferentLengthsKeepInfinitiesLocal) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = tensor({inf, 2.0, 3.0, 4.0, 5.0}, kDouble).view({1, 1, 5});
  Tensor y = F::interpolate(x, sized({3}, kArea));  // windows [0, 2), [1, 4), [3, 5)
  EXPECT_TRUE(equal(y, tensor({inf, 3.0, 4.5}, kDouble).view({1, 1, 3})));
  Tensor x2 = x.view({1, 1, 1, 5}).expand({1, 3, 2, 5}).contiguous(MemoryFormat::ChannelsLast);
  Tensor y2 = F::interpolate(x2, sized({1, 3}, kArea));
  EXPECT_TRUE(allclose(y2, tensor({inf, 3.0, 4.5}, kDouble).view({1, 1, 1, 3}).expand({1, 3, 1, 3}),
                       1e-15, 0))
      << y2;
}

TEST(Interpolate, ZeroBatchForwardAndBackward) {
  Tensor x = randn({0, 3, 4, 4}).requires_grad_(true);
  Tensor y = F::interpolate(x, sized({7, 5}, kBicubic).align_corners(false));
  EXPECT_EQ(y.sizes(), IntArrayRef({0, 3, 7, 5}));
  y.sum().backward();
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 3, 4, 4}));
}

TEST(Interpolate, BFloat16MatchesFloat32Rounded) {
  Tensor x = randn({1, 3, 6, 5}).to(kBFloat16);
  for (const auto& [name, mode] : kModes2d) {
    SCOPED_TRACE(name);
    Tensor y = F::interpolate(x, sized({9, 4}, mode));
    EXPECT_EQ(y.dtype(), kBFloat16);
    Tensor ref = F::interpolate(x.to(kFloat), sized({9, 4}, mode)).to(kBFloat16);
    EXPECT_TRUE(allclose(y.to(kFloat), ref.to(kFloat), 1e-2, 1e-2));
    Tensor xg = x.clone().requires_grad_(true);
    F::interpolate(xg, sized({9, 4}, mode)).sum().backward();
    EXPECT_EQ(xg.grad().dtype(), kBFloat16);
  }
}

TEST(Interpolate, ScaleFactorIsUsedDirectlyUnlessRecomputed) {
  // in 5, scale 1.7: output 8; mapping by 1/1.7 differs from mapping by 5/8.
  Tensor x = arange(5, kDouble).view({1, 1, 5});
  auto o = F::InterpolateFuncOptions().scale_factor(Scales{1.7}).mode(kLinear).align_corners(false);
  Tensor direct = F::interpolate(x, o);
  Tensor recomputed = F::interpolate(x, F::InterpolateFuncOptions(o).recompute_scale_factor(true));
  Tensor by_size = F::interpolate(x, sized({8}, kLinear).align_corners(false));
  EXPECT_EQ(direct.size(2), 8);
  EXPECT_TRUE(equal(recomputed, by_size));
  EXPECT_FALSE(allclose(direct, by_size));
  // The last output of the direct mapping sits at (7 + 0.5) / 1.7 - 0.5 = 3.9118 input pixels.
  EXPECT_NEAR(direct[0][0][7].item<double>(), 7.5 / 1.7 - 0.5, 1e-12);
}

TEST(Interpolate, DoubleBackward) {
  auto f = [](const autograd::variable_list& v) {
    return autograd::variable_list{
        F::interpolate(v[0], sized({5, 7}, kBicubic).align_corners(true)).square()};
  };
  Tensor x = randn({1, 2, 3, 4}, kDouble).requires_grad_(true);
  EXPECT_TRUE(autograd::gradgradcheck(f, {x}));
  auto g = [](const autograd::variable_list& v) {
    return autograd::variable_list{F::interpolate(v[0], sized({2, 3}, kArea)).pow(3)};
  };
  EXPECT_TRUE(autograd::gradgradcheck(g, {x}));
}

TEST(Interpolate, AtenNamesMatchTheFunctional) {
  Tensor x = randn({2, 3, 4, 5});
  EXPECT_TRUE(equal(upsample_bilinear2d(x, {7, 3}, true),
                    F::interpolate(x, sized({7, 3}, kBilinear).align_corners(true))));
  EXPECT_TRUE(equal(upsample_nearest2d(x, {8, 10}, 2.0, 2.0),
                    F::interpolate(x, F::InterpolateFuncOptions().scale_factor(Scales{2, 2}))));
  EXPECT_TRUE(
      equal(_upsample_nearest_exact1d(x[0], {9}), F::interpolate(x[0], sized({9}, kNearestExact))));
  EXPECT_TRUE(
      equal(_upsample_bilinear2d_aa(x, {2, 2}, false),
            F::interpolate(x, sized({2, 2}, kBilinear).align_corners(false).antialias(true))));
}

// ---- grid_sample / affine_grid ----

TEST(GridSampleErrors, ShapesModesAndDtypes) {
  Tensor x = randn({2, 3, 4, 5});
  expect_error(
      [&] {
        F::grid_sample(x, randn({2, 3, 4, 3}));
      },
      {"grid_sampler: expected grid of shape [N, H_out, W_out, 2] for input [2, 3, 4, 5], "
       "but got grid [2, 3, 4, 3]"});
  expect_error(
      [&] {
        F::grid_sample(x, randn({1, 3, 4, 2}));
      },
      {"grid_sampler: expected grid and input to have the same batch size, but got input "
       "[2, 3, 4, 5] and grid [1, 3, 4, 2]"});
  expect_error(
      [&] {
        F::grid_sample(randn({2, 3, 4}), randn({2, 3, 2}));
      },
      {"grid_sampler: expected a 4-D input [N, C, H, W] or a 5-D input [N, C, D, H, W], "
       "but got a 3-D input [2, 3, 4]"});
  expect_error(
      [&] {
        F::grid_sample(randn({1, 2, 3, 3, 3}), randn({1, 2, 2, 2, 3}),
                       F::GridSampleFuncOptions().mode(kBicubic));
      },
      {"grid_sampler: bicubic interpolation supports 4-D input only, but got a 5-D input"});
  expect_error<TypeError>(
      [&] {
        F::grid_sample(x, randn({2, 3, 4, 2}, kDouble));
      },
      {"grid_sampler: expected input and grid of the same floating dtype, but "
       "got input float32 and grid float64"});
  expect_error(
      [&] {
        F::grid_sample(randn({1, 2, 0, 3}), randn({1, 2, 2, 2}));
      },
      {"expected input with non-empty spatial dims, but got input [1, 2, 0, 3]"});
  expect_error(
      [&] {
        F::affine_grid(randn({2, 2, 3}), {2, 1, 4, 4, 4});
      },
      {"affine_grid: expected a batch of 3-D affine matrices of shape [2, 3, 4] for size "
       "[2, 1, 4, 4, 4], but got theta [2, 2, 3]"});
  expect_error<ValueError>(
      [&] {
        F::affine_grid(randn({1, 2, 3}), {1, 1, 0, 4});
      },
      {"affine_grid: expected a positive output size, but got [1, 1, 0, 4]"});
}

// An identity theta samples every pixel centre: bilinear grid_sample gives the input back.
TEST(GridSample, IdentityAffineGridReproducesTheInput) {
  for (bool align : {false, true}) {
    Tensor x = randn({2, 3, 5, 6}, kDouble);
    Tensor theta =
        tensor({1.0, 0.0, 0.0, 0.0, 1.0, 0.0}, kDouble).view({1, 2, 3}).expand({2, 2, 3});
    Tensor grid = F::affine_grid(theta, x.sizes(), align);
    EXPECT_TRUE(allclose(F::grid_sample(x, grid, F::GridSampleFuncOptions().align_corners(align)),
                         x, 1e-12, 1e-12));
    Tensor x3 = randn({1, 2, 3, 4, 5}, kDouble);
    Tensor t3 = eye(3, 4, kDouble).unsqueeze(0);
    Tensor g3 = F::affine_grid(t3, x3.sizes(), align);
    EXPECT_TRUE(allclose(F::grid_sample(x3, g3, F::GridSampleFuncOptions().align_corners(align)),
                         x3, 1e-12, 1e-12));
  }
}

TEST(GridSample, ChannelsLastInputKeepsLayoutAndValues) {
  Tensor x = randn({2, 6, 4, 5});
  Tensor grid = rand({2, 3, 7, 2}) * 2.4 - 1.2;
  for (auto mode :
       {F::GridSampleFuncOptions::mode_t(kBilinear), F::GridSampleFuncOptions::mode_t(kNearest),
        F::GridSampleFuncOptions::mode_t(kBicubic)}) {
    auto o = F::GridSampleFuncOptions().mode(mode).padding_mode(kReflection);
    Tensor y = F::grid_sample(x, grid, o);
    Tensor yl = F::grid_sample(x.contiguous(MemoryFormat::ChannelsLast), grid, o);
    EXPECT_TRUE(yl.is_contiguous(MemoryFormat::ChannelsLast));
    EXPECT_TRUE(allclose(yl, y, 1e-5, 1e-6));
  }
}

TEST(GridSample, ZeroBatchAndEmptyGridBackward) {
  Tensor x = randn({0, 2, 3, 4}).requires_grad_(true);
  Tensor g = randn({0, 2, 2, 2}).requires_grad_(true);
  F::grid_sample(x, g).sum().backward();
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 2, 3, 4}));
  EXPECT_EQ(g.grad().sizes(), IntArrayRef({0, 2, 2, 2}));
  Tensor x2 = randn({1, 2, 3, 4}).requires_grad_(true);
  Tensor g2 = randn({1, 0, 2, 2}).requires_grad_(true);
  F::grid_sample(x2, g2).sum().backward();
  EXPECT_TRUE(equal(x2.grad(), zeros({1, 2, 3, 4})));
}

TEST(GridSample, BFloat16MatchesFloat32) {
  Tensor x = randn({1, 3, 5, 4});
  Tensor grid = rand({1, 4, 3, 2}) * 2 - 1;
  Tensor y = F::grid_sample(x.to(kBFloat16), grid.to(kBFloat16));
  EXPECT_EQ(y.dtype(), kBFloat16);
  Tensor ref = F::grid_sample(x.to(kBFloat16).to(kFloat), grid.to(kBFloat16).to(kFloat));
  EXPECT_TRUE(allclose(y.to(kFloat), ref, 2e-2, 2e-2));
}

TEST(GridSample, DoubleBackwardIsAnErrorAsInPyTorch) {
  Tensor x = randn({1, 2, 3, 4}, kDouble).requires_grad_(true);
  Tensor g = (rand({1, 2, 2, 2}, kDouble) * 2 - 1).requires_grad_(true);
  Tensor y = F::grid_sample(x, g).square().sum();
  auto grads = autograd::grad({y}, {x, g}, {}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(grads[1].requires_grad());
  expect_error<NotImplementedError>([&] { grads[1].sum().backward(); },
                                    {"grid_sampler: the derivative of grid_sampler's backward is "
                                     "not implemented (as in PyTorch)"});
}

TEST(GridSample, NanGridReadsZeros) {
  Tensor x = ones({1, 1, 3, 3});
  Tensor grid = full({1, 1, 1, 2}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(F::grid_sample(x, grid).item<float>(), 0.0f);
}

}  // namespace
