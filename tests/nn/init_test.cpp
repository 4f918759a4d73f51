// nn::init (src/nn/init.cpp): calculate_gain against Python's values, fan computation, exact
// reproducibility from manual_seed, statistical checks whose bounds a wrong formula (wrong fan,
// missing gain, missing sqrt(3)) fails by a wide margin, the structure of eye_/dirac_/
// orthogonal_/sparse_, dtypes, no autograd history, and the error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/init.h"
#include "tests/support/expect_error.h"

using namespace ember;
namespace init = ember::nn::init;

namespace {

using ember_test::expect_error;

double max_abs(const Tensor& t) { return t.to(kDouble).abs().max().item<double>(); }
double sample_std(const Tensor& t) { return t.to(kDouble).std().item<double>(); }
double sample_mean(const Tensor& t) { return t.to(kDouble).mean().item<double>(); }

// Statistics of N(mu, sigma^2) truncated to [a, b].
struct Moments {
  double mean, std;
};
Moments truncated_normal(double mu, double sigma, double a, double b) {
  auto pdf = [](double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * std::acos(-1.0)); };
  auto cdf = [](double x) { return 0.5 * (1 + std::erf(x / std::sqrt(2.0))); };
  const double al = (a - mu) / sigma, be = (b - mu) / sigma;
  const double z = cdf(be) - cdf(al);
  auto xpdf = [&](double x) { return std::isinf(x) ? 0.0 : x * pdf(x); };
  const double m = (pdf(al) - pdf(be)) / z;
  const double var = 1 + (xpdf(al) - xpdf(be)) / z - m * m;
  return {mu + sigma * m, sigma * std::sqrt(var)};
}

}  // namespace

TEST(NnInit, CalculateGainMatchesPython) {
  // Produced by:
  //   python3 -c "import torch.nn.init as I; print(I.calculate_gain('tanh'),
  //     I.calculate_gain('relu'), I.calculate_gain('leaky_relu'),
  //     I.calculate_gain('leaky_relu', 0.2), I.calculate_gain('leaky_relu', 5 ** 0.5),
  //     I.calculate_gain('selu'))"   (torch 1.13; every linear/conv/sigmoid name gives 1)
  EXPECT_DOUBLE_EQ(init::calculate_gain(kLinear), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kConv1D), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kConv2D), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kConv3D), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kConvTranspose1D), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kConvTranspose2D), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kConvTranspose3D), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kSigmoid), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kTanh), 1.6666666666666667);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kReLU), 1.4142135623730951);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kLeakyReLU), 1.4141428569978354);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kLeakyReLU, 0.2), 1.3867504905630728);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kLeakyReLU, 0.0), 1.4142135623730951);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kLeakyReLU, std::sqrt(5.0)), 0.5773502691896257);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kSELU), 0.75);
}

TEST(NnInit, FanInAndFanOut) {
  auto fans = [](std::vector<int64_t> shape) {
    return init::_calculate_fan_in_and_fan_out(ember::empty(shape));
  };
  EXPECT_EQ(fans({3, 4}), std::make_tuple(int64_t{4}, int64_t{3}));
  EXPECT_EQ(fans({6, 2, 7}), std::make_tuple(int64_t{14}, int64_t{42}));
  EXPECT_EQ(fans({8, 4, 3, 5}), std::make_tuple(int64_t{60}, int64_t{120}));
  EXPECT_EQ(fans({2, 3, 1, 2, 2}), std::make_tuple(int64_t{12}, int64_t{8}));
  EXPECT_EQ(fans({0, 5}), std::make_tuple(int64_t{5}, int64_t{0}));
  expect_error<ValueError>([&] { fans({5}); },
                           {"_calculate_fan_in_and_fan_out", "fewer than 2 dimensions", "[5]"});
  expect_error<ValueError>([&] { fans({}); }, {"fewer than 2 dimensions", "0-D"});
  expect_error<ValueError>([] { init::xavier_uniform_(empty({7})); },
                           {"nn::init::xavier_uniform_", "fewer than 2 dimensions"});
  expect_error<ValueError>([] { init::kaiming_normal_(empty({7})); },
                           {"nn::init::kaiming_normal_", "fewer than 2 dimensions"});
}

TEST(NnInit, RandomInitsReproduceFromManualSeed) {
  const std::vector<std::pair<std::string, std::function<void(Tensor)>>> fills = {
      {"uniform_", [](Tensor t) { init::uniform_(t, -2, 3); }},
      {"normal_", [](Tensor t) { init::normal_(t, 1, 2); }},
      {"trunc_normal_", [](Tensor t) { init::trunc_normal_(t, 0, 1, -1, 2); }},
      {"xavier_uniform_", [](Tensor t) { init::xavier_uniform_(t); }},
      {"xavier_normal_", [](Tensor t) { init::xavier_normal_(t); }},
      {"kaiming_uniform_", [](Tensor t) { init::kaiming_uniform_(t); }},
      {"kaiming_normal_", [](Tensor t) { init::kaiming_normal_(t); }},
      {"orthogonal_", [](Tensor t) { init::orthogonal_(t); }},
      {"sparse_", [](Tensor t) { init::sparse_(t, 0.5); }},
  };
  for (const auto& [name, fill] : fills) {
    for (ScalarType dtype : {kFloat, kDouble}) {
      SCOPED_TRACE(name + " " + std::string(to_string(dtype)));
      Tensor a = empty({12, 7}, dtype), b = empty({12, 7}, dtype), c = empty({12, 7}, dtype);
      manual_seed(1234);
      fill(a);
      manual_seed(1234);
      fill(b);
      manual_seed(1235);
      fill(c);
      EXPECT_TRUE(a.equal(b));
      EXPECT_FALSE(a.equal(c));
    }
  }
}

TEST(NnInit, KaimingUniformBoundAndStd) {
  manual_seed(0);
  Tensor w = init::kaiming_uniform_(empty({512, 256}));
  // Default a = 0 with leaky_relu: gain sqrt(2), bound = sqrt(2) * sqrt(3 / 256).
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 256);
  EXPECT_LE(max_abs(w), bound);
  EXPECT_GE(max_abs(w), 0.999 * bound);  // the whole range is used
  // 131k samples: the sample std is within ~0.15% of the truth; a wrong fan or gain is >= 29% off.
  EXPECT_NEAR(sample_std(w), bound / std::sqrt(3.0), 0.01 * bound / std::sqrt(3.0));
  EXPECT_NEAR(sample_mean(w), 0.0, 0.01 * bound);

  Tensor wo = init::kaiming_uniform_(empty({512, 256}), 0, kFanOut, kReLU);
  const double bound_out = std::sqrt(2.0) * std::sqrt(3.0 / 512);
  EXPECT_LE(max_abs(wo), bound_out);
  EXPECT_NEAR(sample_std(wo), bound_out / std::sqrt(3.0), 0.01 * bound_out / std::sqrt(3.0));

  // Conv weight: fan_in = 16 * 3 * 3; a = sqrt(5) as nn::Conv2d uses.
  Tensor wc = init::kaiming_uniform_(empty({64, 16, 3, 3}), std::sqrt(5.0));
  const double bound_c = std::sqrt(2.0 / 6.0) * std::sqrt(3.0 / 144);
  EXPECT_LE(max_abs(wc), bound_c);
  EXPECT_NEAR(sample_std(wc), bound_c / std::sqrt(3.0), 0.02 * bound_c / std::sqrt(3.0));
}

TEST(NnInit, KaimingNormalStd) {
  manual_seed(1);
  Tensor w = init::kaiming_normal_(empty({256, 512}), 0, kFanOut, kReLU);
  const double expected = std::sqrt(2.0) / std::sqrt(256.0);
  EXPECT_NEAR(sample_std(w), expected, 0.01 * expected);
  EXPECT_NEAR(sample_mean(w), 0.0, 0.01 * expected);
  Tensor t = init::kaiming_normal_(empty({256, 512}), 0, kFanIn, kTanh);
  EXPECT_NEAR(sample_std(t), (5.0 / 3.0) / std::sqrt(512.0), 0.01 * (5.0 / 3.0) / std::sqrt(512.0));
}

TEST(NnInit, XavierStd) {
  manual_seed(2);
  Tensor w = init::xavier_normal_(empty({300, 200}), 2.0);
  const double expected = 2.0 * std::sqrt(2.0 / 500);
  EXPECT_NEAR(sample_std(w), expected, 0.01 * expected);
  Tensor u = init::xavier_uniform_(empty({64, 32, 5}), init::calculate_gain(kTanh));
  const double bound = (5.0 / 3.0) * std::sqrt(6.0 / (160 + 320));
  EXPECT_LE(max_abs(u), bound);
  EXPECT_GE(max_abs(u), 0.999 * bound);
  EXPECT_NEAR(sample_std(u), bound / std::sqrt(3.0), 0.01 * bound / std::sqrt(3.0));
}

TEST(NnInit, UniformAndNormal) {
  manual_seed(3);
  Tensor u = init::uniform_(empty({100000}), -1, 3);
  EXPECT_GE(u.min().item<double>(), -1);
  EXPECT_LT(u.max().item<double>(), 3);
  EXPECT_NEAR(sample_mean(u), 1.0, 0.02);
  Tensor n = init::normal_(empty({100000}, kDouble), -2, 0.5);
  EXPECT_NEAR(sample_mean(n), -2.0, 0.01);
  EXPECT_NEAR(sample_std(n), 0.5, 0.005);
}

TEST(NnInit, TruncNormalStaysInBoundsWithTheTruncatedStd) {
  manual_seed(4);
  struct Case {
    double mean, std, a, b;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (Case c : {Case{0, 1, -2, 2}, Case{1, 2, -1, 4}, Case{0, 1, 0, inf}, Case{0, 1, -inf, inf},
                 Case{0.5, 0.1, 0.4, 0.45}, Case{0, 1, 6, 7}, Case{-3, 0.5, -inf, -6}}) {
    for (ScalarType dtype : {kFloat, kDouble}) {
      SCOPED_TRACE(std::to_string(c.mean) + " " + std::to_string(c.std) + " [" +
                   std::to_string(c.a) + ", " + std::to_string(c.b) + "] " + to_string(dtype));
      Tensor t = init::trunc_normal_(empty({200000}, dtype), c.mean, c.std, c.a, c.b);
      EXPECT_TRUE(t.isfinite().all().item<bool>());
      EXPECT_GE(t.min().item<double>(), c.a);
      EXPECT_LE(t.max().item<double>(), c.b);
      Moments m = truncated_normal(c.mean, c.std, c.a, c.b);
      // 200k samples: std error ~0.2% of std; an untruncated or mis-scaled draw is >= 10% off.
      EXPECT_NEAR(sample_std(t), m.std, 0.01 * m.std);
      EXPECT_NEAR(sample_mean(t), m.mean, 0.01 * m.std);
    }
  }
  // [6, 7] and [-inf, -6 sigma] lie where 1 - |2u - 1| is ~1e-9: they need erfinv to full float64
  // precision in the tails (a single-precision erfinv puts every sample on a bound).
  // The default [-2, 2] cut of N(0, 1): std 0.8796 (untruncated would be 1).
  EXPECT_NEAR(truncated_normal(0, 1, -2, 2).std, 0.8796, 1e-4);
}

TEST(NnInit, OrthogonalRowsOrColumnsAreOrthonormal) {
  manual_seed(5);
  for (ScalarType dtype : {kDouble, kFloat}) {
    const double tol = dtype == kDouble ? 1e-12 : 2e-6;
    SCOPED_TRACE(to_string(dtype));
    Tensor tall = init::orthogonal_(empty({64, 32}, dtype));
    EXPECT_LE(max_abs(tall.t().matmul(tall) - eye(32, dtype)), tol);
    Tensor wide = init::orthogonal_(empty({32, 64}, dtype));
    EXPECT_LE(max_abs(wide.matmul(wide.t()) - eye(32, dtype)), tol);
    Tensor square = init::orthogonal_(empty({20, 20}, dtype), 3.0);
    EXPECT_LE(max_abs(square.matmul(square.t()) - 9.0 * eye(20, dtype)), 9 * tol);
    EXPECT_LE(max_abs(square.t().matmul(square) - 9.0 * eye(20, dtype)), 9 * tol);
    // 4-D: rows = 16, cols = 4 * 3 * 3 = 36, so the flattened rows are orthonormal.
    Tensor conv = init::orthogonal_(empty({16, 4, 3, 3}, dtype), 0.5);
    Tensor flat = conv.reshape({16, 36});
    EXPECT_LE(max_abs(flat.matmul(flat.t()) - 0.25 * eye(16, dtype)), tol);
  }
}

TEST(NnInit, OrthogonalIsSignFixed) {
  // With the sign of R's diagonal folded into Q, Q is Haar-distributed and W[0][0] is symmetric
  // about 0 (std 0.5 for 4x4: the mean of 400 draws is within 0.1 at 4 sigma). Raw Householder QR
  // makes the first column point against the first input column: a mean near -0.4.
  manual_seed(6);
  double sum = 0;
  const int n = 400;
  for (int i = 0; i < n; ++i) sum += init::orthogonal_(empty({4, 4}))[0][0].item<double>();
  EXPECT_NEAR(sum / n, 0.0, 0.1);
}

TEST(NnInit, SparseZerosExactlyCeilSparsityRowsPerColumn) {
  manual_seed(7);
  struct Case {
    int64_t rows, cols;
    double sparsity;
    int64_t zeros;  // int(math.ceil(sparsity * rows)) in Python
  };
  // 0.07 * 100 is 7.000000000000001 in floating point, so Python zeros 8 rows, and so do we.
  for (Case c : {Case{100, 30, 0.25, 25}, Case{100, 20, 0.07, 8}, Case{10, 50, 0.3, 3},
                 Case{7, 3, 0.0, 0}, Case{7, 3, 1.0, 7}, Case{9, 4, 0.5, 5}}) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols) + " " +
                 std::to_string(c.sparsity));
    Tensor t = init::sparse_(empty({c.rows, c.cols}), c.sparsity, 0.5);
    Tensor zeros_per_col = t.eq(0).sum({0}, false, kLong);
    EXPECT_TRUE(zeros_per_col.eq(c.zeros).all().item<bool>()) << zeros_per_col;
  }
  // The zero rows differ between columns, and the rest is N(0, std^2).
  Tensor t = init::sparse_(empty({200, 40}), 0.5, 0.02);
  Tensor mask = t.eq(0);
  EXPECT_FALSE(mask.select(1, 0).equal(mask.select(1, 1)));
  Tensor nonzero = t.masked_select(mask.logical_not());
  EXPECT_EQ(nonzero.numel(), 100 * 40);
  EXPECT_NEAR(sample_std(nonzero), 0.02, 0.0006);
}

TEST(NnInit, DiracPattern) {
  auto expected = [](std::vector<int64_t> shape, int64_t groups) {
    Tensor e = ember::zeros(shape);
    const int64_t per = shape[0] / groups;
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t d = 0; d < std::min(per, shape[1]); ++d) {
        std::vector<TensorIndex> at = {g * per + d, d};
        for (size_t k = 2; k < shape.size(); ++k) at.emplace_back(shape[k] / 2);
        e.index_put_(at, 1.0);
      }
    return e;
  };
  struct Case {
    std::vector<int64_t> shape;
    int64_t groups;
  };
  for (const Case& c : {Case{{6, 4, 3}, 1}, Case{{3, 5, 4}, 1}, Case{{4, 4, 3, 5}, 1},
                        Case{{8, 3, 3, 3}, 2}, Case{{6, 2, 3, 2, 3}, 3}}) {
    Tensor w = ember::full(c.shape, 7.0);
    init::dirac_(w, c.groups);
    EXPECT_TRUE(w.equal(expected(c.shape, c.groups)));
  }
  // As a conv weight it is the identity: the centre tap of channel d reads input channel d.
  Tensor w = init::dirac_(empty({4, 4, 3}));
  EXPECT_EQ(w.sum().item<double>(), 4.0);
  EXPECT_EQ(w.index({2, 2, 1}).item<double>(), 1.0);
  expect_error<ValueError>(
      [] {
        init::dirac_(empty({4, 4}));
      },
      {"nn::init::dirac_", "3, 4, or 5 dimensions", "[4, 4]"});
  expect_error<ValueError>(
      [] {
        init::dirac_(empty({5, 2, 3}), 2);
      },
      {"dim 0 must be divisible by groups", "5", "2"});
}

TEST(NnInit, EyeConstantOnesZeros) {
  Tensor e = init::eye_(full({3, 5}, 2.0));
  EXPECT_TRUE(e.equal(eye(3, 5)));
  EXPECT_TRUE(init::eye_(empty({4, 2}, kDouble)).equal(eye(4, 2, kDouble)));
  expect_error<ValueError>(
      [] {
        init::eye_(empty({2, 2, 2}));
      },
      {"nn::init::eye_", "Only tensors with 2 dimensions", "[2, 2, 2]"});
  EXPECT_TRUE(init::constant_(empty({2, 3}), 0.25).equal(full({2, 3}, 0.25)));
  EXPECT_TRUE(init::constant_(empty({4}, kLong), 3).equal(full({4}, 3, kLong)));
  EXPECT_TRUE(init::ones_(empty({2, 2}, kHalf)).equal(ones({2, 2}, kHalf)));
  EXPECT_TRUE(init::zeros_(full({5}, 9.0)).equal(zeros({5})));
}

TEST(NnInit, FillsParametersWithoutRecordingHistory) {
  Tensor w = empty({8, 4}).requires_grad_();
  Tensor r = init::kaiming_uniform_(w, std::sqrt(5.0));
  EXPECT_TRUE(r.is_same(w));  // in place, returns the same tensor
  for (auto fill : std::vector<std::function<Tensor(Tensor)>>{
           [](Tensor t) { return init::xavier_normal_(t); },
           [](Tensor t) { return init::orthogonal_(t); },
           [](Tensor t) { return init::trunc_normal_(t, 0, 0.02); },
           [](Tensor t) { return init::sparse_(t, 0.1); }, [](Tensor t) { return init::eye_(t); },
           [](Tensor t) { return init::zeros_(t); }}) {
    Tensor out = fill(w);
    EXPECT_TRUE(out.is_same(w));
    EXPECT_TRUE(w.is_leaf());
    EXPECT_TRUE(w.requires_grad());
    EXPECT_FALSE(w.grad_fn());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  Tensor conv = empty({4, 4, 3}).requires_grad_();
  init::dirac_(conv);
  EXPECT_TRUE(conv.is_leaf());
}

TEST(NnInit, SixteenBitDtypes) {
  manual_seed(8);
  for (ScalarType dtype : {kHalf, kBFloat16}) {
    SCOPED_TRACE(to_string(dtype));
    Tensor k = init::kaiming_uniform_(empty({256, 128}, dtype));
    const double bound = std::sqrt(6.0 / 128);
    EXPECT_EQ(k.dtype(), dtype);
    EXPECT_LE(max_abs(k), bound * (1 + 1e-2));  // rounding to 8/11 significant bits
    EXPECT_NEAR(sample_std(k), bound / std::sqrt(3.0), 0.02 * bound / std::sqrt(3.0));
    Tensor n = init::kaiming_normal_(empty({256, 128}, dtype));
    EXPECT_NEAR(sample_std(n), std::sqrt(2.0 / 128), 0.02 * std::sqrt(2.0 / 128));
    Tensor t = init::trunc_normal_(empty({20000}, dtype), 0, 1, -2, 2);
    EXPECT_LE(max_abs(t), 2.0);
    EXPECT_NEAR(sample_std(t), 0.8796, 0.02);
    Tensor q = init::orthogonal_(empty({16, 32}, dtype)).to(kDouble);
    EXPECT_LE(max_abs(q.matmul(q.t()) - eye(16, kDouble)), dtype == kHalf ? 1e-2 : 5e-2);
    EXPECT_NO_THROW(init::xavier_normal_(empty({4, 4}, dtype)));
    EXPECT_NO_THROW(init::sparse_(empty({4, 4}, dtype), 0.5));
  }
}

TEST(NnInit, ZeroSizeTensorsAreLeftAlone) {
  EXPECT_EQ(init::kaiming_uniform_(empty({0})).numel(), 0);  // Python returns before the fans
  EXPECT_EQ(init::kaiming_normal_(empty({0, 3})).numel(), 0);
  EXPECT_EQ(init::xavier_uniform_(empty({0, 0})).numel(), 0);
  EXPECT_EQ(init::orthogonal_(empty({3, 0})).numel(), 0);
  EXPECT_EQ(init::trunc_normal_(empty({0})).numel(), 0);
  EXPECT_EQ(init::sparse_(empty({0, 4}), 0.5).numel(), 0);
}

TEST(NnInit, Errors) {
  expect_error<TypeError>([] { init::uniform_(empty({3}, kLong)); },
                          {"nn::init::uniform_", "floating point", "int64", "[3]"});
  expect_error<TypeError>(
      [] {
        init::kaiming_uniform_(empty({3, 3}, kInt));
      },
      {"nn::init::kaiming_uniform_", "floating point", "int32"});
  expect_error<ValueError>([] { init::orthogonal_(empty({5})); },
                           {"nn::init::orthogonal_", "2 or more dimensions", "[5]"});
  expect_error<ValueError>(
      [] {
        init::sparse_(empty({2, 3, 4}), 0.1);
      },
      {"nn::init::sparse_", "Only tensors with 2 dimensions", "[2, 3, 4]"});
  expect_error<ValueError>([] { init::sparse_(empty({4, 4}), 1.5); }, {"sparsity", "1.5"});
  expect_error<ValueError>([] { init::trunc_normal_(empty({4}), 0, 1, 2, 1); }, {"a <= b"});
  expect_error<ValueError>([] { init::trunc_normal_(empty({4}), 0, 0); }, {"std", "positive"});
  expect_error<ValueError>([] { init::uniform_(empty({4}), 2, 1); }, {"uniform_", "from=2"});
  expect_error<Error>([] { init::zeros_(Tensor()); }, {"nn::init::zeros_", "undefined"});
}
