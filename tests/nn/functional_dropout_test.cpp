// The dropout family's random behaviour (src/nn/functional/dropout.cpp): the golden table only
// covers the identity cases, so these tests check the statistics of the masks with fixed seeds,
// the scaling of survivors, channel masks, gradients, in-place forms, and every error.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ember/ember.h"
#include "ember/nn/functional/dropout.h"
#include "tests/support/expect_error.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

using ember_test::expect_error;

double fraction_zero(const Tensor& t) { return (t == 0).to(kDouble).mean().item<double>(); }

// Every value of t is 0 or `scale` (compared in t's dtype).
void expect_zero_or(const Tensor& t, double scale) {
  Tensor s = full({}, scale, t.dtype());
  EXPECT_TRUE(((t == 0).logical_or(t == s)).all().item<bool>())
      << "values other than 0 and " << scale;
}

// For a channel mask applied to ones: every channel (dims 0..batch_dims) is all 0 or all scale.
void expect_whole_channels(const Tensor& y, int64_t channel_dims, double scale) {
  Tensor flat = y.reshape({-1, y.numel() / [&] {
                             int64_t n = 1;
                             for (int64_t d = 0; d < channel_dims; ++d) n *= y.size(d);
                             return n;
                           }()});
  Tensor lo = std::get<0>(flat.min(1)), hi = std::get<0>(flat.max(1));
  EXPECT_TRUE(lo.equal(hi)) << "a channel is partly dropped";
  expect_zero_or(lo, scale);
}

TEST(Dropout, ZeroesAboutPOfTheElementsAndScalesSurvivorsByOneOverOneMinusP) {
  manual_seed(7);
  for (double p : {0.1, 0.3, 0.8}) {
    Tensor y = F::dropout(ones({200000}), F::DropoutFuncOptions().p(p));
    // 200k draws: the fraction's standard deviation is below 0.0012; 0.006 is 5 sigma.
    EXPECT_NEAR(fraction_zero(y), p, 0.006) << "p=" << p;
    expect_zero_or(y, 1.0 / (1.0 - p));
  }
}

TEST(Dropout, MasksDifferBetweenCallsAndReproduceWithTheSeed) {
  Tensor x = ones({1000});
  manual_seed(3);
  Tensor a = F::dropout(x), b = F::dropout(x);
  manual_seed(3);
  Tensor c = F::dropout(x);
  EXPECT_FALSE(a.equal(b));
  EXPECT_TRUE(a.equal(c));
}

TEST(Dropout, IdentityWhenNotTrainingOrPIsZero) {
  Tensor x = randn({4, 5});
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().training(false)).is_same(x));
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().p(0)).is_same(x));
  EXPECT_TRUE(F::dropout2d(x.view({1, 4, 5, 1}), F::Dropout2dFuncOptions().training(false))
                  .equal(x.view({1, 4, 5, 1})));
  // alpha dropout's functional default is training=false, as LibTorch's.
  EXPECT_TRUE(F::alpha_dropout(x).is_same(x));
  EXPECT_TRUE(F::feature_alpha_dropout(x).is_same(x));
}

TEST(Dropout, POfOneGivesZerosWithAZeroGradient) {
  Tensor x = randn({3, 4}).requires_grad_();
  Tensor y = F::dropout(x, F::DropoutFuncOptions().p(1));
  EXPECT_TRUE(y.equal(zeros({3, 4})));
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(zeros({3, 4})));
  EXPECT_TRUE(F::alpha_dropout(ones({5}), F::AlphaDropoutFuncOptions().p(1).training(true))
                  .equal(zeros({5})));
}

TEST(Dropout, ProbabilityOutsideZeroOneThrows) {
  for (double p : {-0.1, 1.5}) {
    expect_error<ValueError>([&] { F::dropout(ones({2}), F::DropoutFuncOptions().p(p)); },
                             {"dropout: dropout probability has to be between 0 and 1, but got"});
    // Checked even when the call would be an identity.
    expect_error<ValueError>(
        [&] {
          F::dropout2d(ones({1, 2, 2, 2}), F::Dropout2dFuncOptions().p(p).training(false));
        },
        {"dropout2d: dropout probability"});
    expect_error<ValueError>(
        [&] { F::alpha_dropout(ones({2}), F::AlphaDropoutFuncOptions().p(p)); },
        {"alpha_dropout: dropout probability"});
  }
}

TEST(Dropout, GradientIsTheScaledMask) {
  manual_seed(11);
  Tensor x = randn({50, 40}).requires_grad_();
  Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.25));
  Tensor g = randn({50, 40});
  y.backward(g);
  // y = x·mask with mask in {0, 1/0.75}: recover the mask from y and x (x has no zeros).
  Tensor mask = (y.detach() != 0).to(kFloat) / 0.75;
  EXPECT_TRUE(allclose(x.grad(), g * mask, 1e-6, 1e-7));
  EXPECT_TRUE(allclose(y.detach(), x.detach() * mask, 1e-6, 1e-7));
}

TEST(Dropout, InplaceWritesTheInput) {
  manual_seed(5);
  Tensor x = ones({1000});
  Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.5).inplace(true));
  EXPECT_TRUE(y.is_same(x));
  EXPECT_NEAR(fraction_zero(x), 0.5, 0.08);
  expect_zero_or(x, 2.0);
}

TEST(Dropout, Float64AndBFloat16Inputs) {
  manual_seed(9);
  Tensor d = F::dropout(ones({20000}, kDouble), F::DropoutFuncOptions().p(0.4));
  EXPECT_EQ(d.dtype(), kDouble);
  EXPECT_NEAR(fraction_zero(d), 0.4, 0.02);
  expect_zero_or(d, 1.0 / 0.6);
  Tensor h = F::dropout(ones({20000}, kBFloat16), F::DropoutFuncOptions().p(0.5));
  EXPECT_EQ(h.dtype(), kBFloat16);
  EXPECT_NEAR(fraction_zero(h), 0.5, 0.02);
  expect_zero_or(h, 2.0);
}

TEST(Dropout, IntegerInputInTrainingIsATypeError) {
  expect_error<TypeError>([] { F::dropout(ones({3}, kLong)); },
                          {"dropout: input must have a floating dtype", "[3] int64"});
}

TEST(FeatureDropout, Dropout2dDropsWholeChannels) {
  manual_seed(21);
  Tensor y = F::dropout2d(ones({16, 64, 3, 3}), F::Dropout2dFuncOptions().p(0.5));
  expect_whole_channels(y, 2, 2.0);
  // 1024 channels: standard deviation 0.016; 0.08 is 5 sigma.
  EXPECT_NEAR(fraction_zero(y), 0.5, 0.08);
  // Unbatched [C, H, W]: one draw per channel (LibTorch's reading of a 3-D input).
  Tensor u = F::dropout2d(ones({256, 4, 4}), F::Dropout2dFuncOptions().p(0.3));
  expect_whole_channels(u, 1, 1.0 / 0.7);
  EXPECT_NEAR(fraction_zero(u), 0.3, 0.15);
}

TEST(FeatureDropout, Dropout1dAndDropout3dDropWholeChannels) {
  manual_seed(22);
  expect_whole_channels(F::dropout1d(ones({8, 32, 7}), F::Dropout1dFuncOptions().p(0.5)), 2, 2.0);
  expect_whole_channels(F::dropout1d(ones({32, 7})), 1, 2.0);
  expect_whole_channels(F::dropout3d(ones({4, 16, 2, 3, 2}), F::Dropout3dFuncOptions().p(0.5)), 2,
                        2.0);
  expect_whole_channels(F::dropout3d(ones({16, 2, 3, 2})), 1, 2.0);
}

TEST(FeatureDropout, ChannelMaskGradient) {
  manual_seed(23);
  Tensor x = ones({4, 8, 5}).requires_grad_();
  Tensor y = F::dropout1d(x, F::Dropout1dFuncOptions().p(0.5));
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(y.detach()));  // x is ones: y is the scaled mask itself
}

TEST(FeatureDropout, WrongRankNamesTheOpAndTheExpectedShapes) {
  expect_error<Error>(
      [] {
        F::dropout2d(ones({4, 5}));
      },
      {"dropout2d: expected a 3-D or 4-D input ([N, C, H, W] or [C, H, W]), but "
       "got [4, 5] float32",
       "use dropout"});
  expect_error<Error>(
      [] {
        F::dropout1d(ones({2, 3, 4, 5}));
      },
      {"dropout1d: expected a 2-D or 3-D input ([N, C, L] or [C, L])", "[2, 3, 4, 5] float32"});
  expect_error<Error>(
      [] {
        F::dropout3d(ones({2, 3, 4}));
      },
      {"dropout3d: expected a 4-D or 5-D input", "[2, 3, 4] float32"});
}

// SELU's fixed point: alpha dropout of a standard normal input keeps mean 0 and variance 1.
TEST(AlphaDropout, KeepsMeanAndStdOfAStandardNormalInput) {
  manual_seed(31);
  for (double p : {0.1, 0.5}) {
    Tensor x = randn({400000}, kDouble);
    Tensor y = F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(p).training(true));
    // 400k samples: the standard errors of mean and std are about 0.002.
    EXPECT_NEAR(y.mean().item<double>(), 0.0, 0.01) << "p=" << p;
    EXPECT_NEAR(y.std().item<double>(), 1.0, 0.01) << "p=" << p;
    // Dropped units all take one value, a·(-α') + shift: count them.
    const double alpha = 1.7580993408473766;
    const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
    const double dropped = a * alpha * (p - 1);
    const double frac = (y - dropped).abs().lt(1e-12).to(kDouble).mean().item<double>();
    EXPECT_NEAR(frac, p, 0.01) << "p=" << p;
  }
}

TEST(AlphaDropout, GradientIsTheMultiplierOfKeptUnits) {
  manual_seed(32);
  const double p = 0.2, alpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  Tensor x = randn({1000}, kDouble).requires_grad_();
  Tensor y = F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(p).training(true));
  y.sum().backward();
  const double dropped = a * alpha * (p - 1);
  Tensor kept = (y.detach() - dropped).abs().gt(1e-12).to(kDouble);
  EXPECT_TRUE(allclose(x.grad(), kept * a, 1e-12, 1e-12));
}

TEST(AlphaDropout, FeatureAlphaDropoutDropsWholeChannels) {
  manual_seed(33);
  const double p = 0.5, alpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  Tensor x = randn({64, 32, 6}, kDouble);
  Tensor y = F::feature_alpha_dropout(x, F::FeatureAlphaDropoutFuncOptions().p(p).training(true));
  // A dropped channel is constant; a kept one is a·x + shift.
  Tensor kept = y.sub(x * a).sub(alpha * a * p).abs().lt(1e-9).all(2);
  Tensor dropped = y.sub(a * alpha * (p - 1)).abs().lt(1e-12).all(2);
  EXPECT_TRUE(kept.logical_xor(dropped).all().item<bool>());
  EXPECT_NEAR(dropped.to(kDouble).mean().item<double>(), p, 0.06);
  EXPECT_NEAR(y.mean().item<double>(), 0.0, 0.05);
  EXPECT_NEAR(y.std().item<double>(), 1.0, 0.05);
  expect_error<Error>(
      [] {
        F::feature_alpha_dropout(ones({5}), F::FeatureAlphaDropoutFuncOptions().training(true));
      },
      {"feature_alpha_dropout: expected an input of at least 2 dims [N, C, *], but got [5] "
       "float32"});
}

TEST(AlphaDropout, InplaceWritesTheInput) {
  manual_seed(34);
  Tensor x = randn({100});
  Tensor before = x.clone();
  Tensor y = F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.3).training(true).inplace(true));
  EXPECT_TRUE(y.is_same(x));
  EXPECT_FALSE(x.equal(before));
}

}  // namespace
