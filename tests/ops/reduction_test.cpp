// Reductions: the behaviour golden data cannot show: every loop shape of the kernels against a
// float64 reference, dtype rules, NaN rules, empty inputs, statistics and error text.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "ember/ember.h"
#include "tests/ops/reduction_test_util.h"

using namespace ember;
using namespace reduction_test;

namespace reduction_test {

// ---------------------------------------------------------------------------------------------
// Loop shapes: dense inner rows, outer (column tiles), strided, split over threads.

TEST(ReductionLoops, SumOverEveryDimComboOfContiguousAndPermutedInputs) {
  Tensor base = sample({9, 70, 300});  // 300 > a 256-wide tile: partial tiles too
  const std::vector<std::vector<int64_t>> combos = {{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {}};
  struct Case {
    Tensor x;
    std::vector<int64_t> dims;
    SumReference sum;
    std::vector<double> max;
  };
  std::vector<Case> cases;  // the float64 references once, not once per thread count
  for (const Tensor& x : {base, base.permute({2, 0, 1}), base.transpose(0, 2),
                          base.slice(2, 1, 300, 3), base.select(1, 5).unsqueeze(1)})
    for (const auto& d : combos)
      cases.push_back({x, d, SumReference(x, d), reference(x, d, -INFINITY, kFoldMax)});
  with_thread_counts([&] {
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::PrintToString(shape_of(c.x)) + " dims " +
                   ::testing::PrintToString(c.dims));
      expect_sum_near(c.x.sum(c.dims), c.sum, "sum");
      expect_values_near(c.x.amax(c.dims), c.max, 0, "amax");
    }
  });
}

TEST(ReductionLoops, ExpandedInputReducesTheRepeatedElement) {
  Tensor row = sample({1, 50});
  Tensor x = row.expand({4000, 50});  // stride 0 along dim 0
  with_thread_counts([&] {
    expect_sum_near(x.sum({0}), x, {0}, "sum over the expanded dim");
    expect_sum_near(x.sum({1}), x, {1}, "sum over the dense dim");
  });
}

TEST(ReductionLoops, FullSumOfManyFloatsIsAccurate) {
  // 2^22 copies of 0.1f: a left-to-right float sum is off by ~4% (it stalls once the ulp of the
  // total nears 0.1); blocked pairwise summation stays within a few ulp.
  Tensor x = full({1 << 22}, 0.1f);
  const double expected = double(0.1f) * (1 << 22);
  with_thread_counts([&] {
    EXPECT_NEAR(x.sum().item<double>(), expected, expected * 1e-6);
    EXPECT_NEAR(x.mean().item<double>(), double(0.1f), 1e-7);
  });
}

TEST(ReductionLoops, DenseFloatSumsAroundTheFourStreamSplit) {
  // Dense float32 runs of 4096 and more are read as four quarters side by side, each with its own
  // cascade (levels carry at 4096 and 65536 elements a quarter), plus a tail of < 64 elements.
  // Every length around those boundaries, aligned and not, against float64.
  const std::vector<int64_t> lengths = {4095,  4096,  4097,   4159,   4160,   16383,   16384,
                                        16447, 16448, 262143, 262144, 262207, 1 << 20, 1000003};
  Tensor big = sample({1000004}, 11);
  with_thread_counts([&] {
    for (int64_t n : lengths) {
      for (int64_t offset : {0, 1}) {
        Tensor x = big.slice(0, offset, offset + n);
        SCOPED_TRACE("n = " + std::to_string(n) + ", offset " + std::to_string(offset));
        double ref = 0, mag = 0;
        for (double v : values_of(x)) {
          ref += v;
          mag += std::fabs(v);
        }
        EXPECT_NEAR(x.sum().item<double>(), ref, 1e-7 * mag);
      }
    }
  });
}

TEST(ReductionLoops, DenseFloatSumPropagatesNanAndInfFromEveryStreamAndTheTail) {
  const int64_t n = 16384 + 37;  // four quarters of 4096, then a tail of 37
  for (int64_t pos :
       {int64_t(0), int64_t(4095), int64_t(4096 * 2 + 5), int64_t(4096 * 3 + 4095), n - 1}) {
    SCOPED_TRACE("position " + std::to_string(pos));
    Tensor x = ones({n});
    x.data_ptr<float>()[pos] = INFINITY;
    EXPECT_EQ(x.sum().item<float>(), INFINITY);
    x.data_ptr<float>()[pos == 0 ? n - 1 : 0] = -INFINITY;
    EXPECT_TRUE(std::isnan(x.sum().item<float>()));
    x = ones({n});
    x.data_ptr<float>()[pos] = NAN;
    EXPECT_TRUE(std::isnan(x.sum().item<float>()));
  }
}

TEST(ReductionLoops, OuterSumOfManyRowsIsAccurate) {
  Tensor x = full({1 << 20, 8}, 0.1f);  // sum over dim 0: vectorised across the 8 columns
  const double expected = double(0.1f) * (1 << 20);
  with_thread_counts([&] {
    for (double v : values_of(x.sum({0}))) EXPECT_NEAR(v, expected, expected * 1e-5);
  });
}

TEST(ReductionLoops, LargeFullReductionsMatchFloat64) {
  Tensor x = sample({3, 1 << 19}, 7);
  const SumReference all(x, {}), rows(x, {1});
  const std::vector<double> min =
      reference(x, {}, INFINITY, [](double a, double v) { return std::min(a, v); });
  const std::vector<double> sq = reference(x, {}, 0, [](double a, double v) { return a + v * v; });
  with_thread_counts([&] {
    expect_sum_near(x.sum(), all, "sum");
    expect_sum_near(x.sum({1}), rows, "sum rows");
    expect_sum_near(x.t().sum({0}), rows, "sum rows, transposed");
    expect_values_near(x.amin(), min, 0, "amin");
    expect_values_near(x.norm(), {std::sqrt(sq[0])}, 1e-5, "norm");
  });
}

// ---------------------------------------------------------------------------------------------
// Shapes: keepdim, negative dims, empty dim lists, 0-dim inputs.

TEST(ReductionShapes, KeepdimKeepsReducedDimsAsOne) {
  Tensor x = sample({2, 3, 4});
  EXPECT_EQ(shape_of(x.sum({0, 2}, true)), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(shape_of(x.sum({0, 2})), (std::vector<int64_t>{3}));
  EXPECT_EQ(shape_of(x.sum({-1})), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(shape_of(x.sum(IntArrayRef{})), (std::vector<int64_t>{}));
  EXPECT_EQ(shape_of(x.mean({1}, true)), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(shape_of(x.amax({}, true)), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(shape_of(std::get<1>(x.max(-2, true))), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(shape_of(x.argmax(std::nullopt, true)), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(shape_of(x.var(1, std::optional<double>(1.0), true)), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(shape_of(x.norm(2, {0, 1}, true)), (std::vector<int64_t>{1, 1, 4}));
  EXPECT_EQ(shape_of(x.logsumexp({2}, true)), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(shape_of(std::get<0>(x.median(1, true))), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(shape_of(x.all(0, true)), (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(shape_of(std::get<0>(x.topk(2, 1))), (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(shape_of(count_nonzero(x, {0, 2})), (std::vector<int64_t>{3}));
}

TEST(ReductionShapes, ZeroDimInputAcceptsDimZeroAndMinusOne) {
  Tensor s = tensor(2.5);
  EXPECT_EQ(s.sum({0}).item<double>(), 2.5);
  EXPECT_EQ(s.sum({-1}, true).dim(), 0);
  auto [v, i] = s.max(0);
  EXPECT_EQ(v.item<double>(), 2.5);
  EXPECT_EQ(i.item<int64_t>(), 0);
  EXPECT_EQ(s.softmax(0).item<double>(), 1.0);
  EXPECT_EQ(s.cumsum(-1).item<double>(), 2.5);
  EXPECT_EQ(std::get<0>(s.sort()).item<double>(), 2.5);
  EXPECT_EQ(std::get<0>(s.topk(1)).item<double>(), 2.5);
  EXPECT_TRUE(std::isnan(s.var().item<double>()));  // one element, correction 1
  expect_error<Error>([&] { s.sum({0, -1}); }, {"sum", "appears multiple times"});
  expect_error<IndexError>([&] { s.sum({1}); }, {"sum", "1"});
}

// ---------------------------------------------------------------------------------------------
// Empty inputs.

TEST(ReductionEmpty, IdentitiesOfSumProdAllAnyAndNanOfMeanVar) {
  Tensor e = empty({0, 3});
  EXPECT_EQ(values_of(e.sum({0})), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values_of(e.prod(0)), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(e.sum().item<double>(), 0.0);
  EXPECT_TRUE(e.all().item<bool>());
  EXPECT_FALSE(e.any().item<bool>());
  EXPECT_EQ(values_of(e.all(0)), (std::vector<double>{1, 1, 1}));
  for (double v : values_of(e.mean({0}))) EXPECT_TRUE(std::isnan(v));
  for (double v : values_of(e.var(0))) EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(std::isnan(e.mean().item<double>()));
  EXPECT_EQ(values_of(e.norm(-INFINITY, {0})), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values_of(e.logsumexp({0})), (std::vector<double>{-INFINITY, -INFINITY, -INFINITY}));
  EXPECT_EQ(values_of(count_nonzero(e, {0})), (std::vector<double>{0, 0, 0}));
  EXPECT_TRUE(std::isnan(e.median().item<double>()));
  // Reducing the non-empty dim of an empty tensor gives an empty result.
  EXPECT_EQ(shape_of(e.amax({1})), (std::vector<int64_t>{0}));
  EXPECT_EQ(shape_of(std::get<1>(e.max(1))), (std::vector<int64_t>{0}));
  EXPECT_EQ(shape_of(e.argmax(1)), (std::vector<int64_t>{0}));
  EXPECT_EQ(shape_of(e.softmax(1)), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(shape_of(e.cumsum(0)), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(shape_of(std::get<1>(e.sort(0))), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(shape_of(std::get<0>(e.topk(0, 0))), (std::vector<int64_t>{0, 3}));
}

TEST(ReductionEmpty, ReductionsWithoutIdentityNameTheOpAndDim) {
  Tensor e = empty({0, 3});
  expect_error<Error>([&] { e.max(); }, {"max", "numel() == 0", "'dim'"});
  expect_error<Error>([&] { e.min(); }, {"min", "numel() == 0"});
  expect_error<Error>([&] { e.amax(); }, {"amax", "numel() == 0"});
  expect_error<IndexError>([&] { e.amax({0}); }, {"amax", "reduction dim 0", "non-zero size"});
  expect_error<IndexError>([&] { e.max(0); }, {"max", "reduction dim 0"});
  expect_error<IndexError>([&] { e.min(-2); }, {"min", "reduction dim 0"});
  expect_error<IndexError>([&] { e.argmax(); }, {"argmax", "numel() == 0"});
  expect_error<IndexError>([&] { e.argmin(0); }, {"argmin", "reduction dim 0"});
  expect_error<IndexError>([&] { e.median(0); }, {"median", "reduction dim 0"});
  expect_error<Error>([&] { e.topk(1, 0); }, {"topk", "k out of range", "k = 1"});
}

// ---------------------------------------------------------------------------------------------
// Dtype rules (PyTorch's).

TEST(ReductionDtypes, IntegerAndBoolSumsAccumulateInInt64) {
  EXPECT_EQ(ones({3}, kInt).sum().dtype(), kLong);
  EXPECT_EQ(ones({3}, kBool).sum().dtype(), kLong);
  EXPECT_EQ(ones({3}, kBool).sum().item<int64_t>(), 3);
  EXPECT_EQ(ones({3}, kBool).prod().dtype(), kLong);
  EXPECT_EQ(full({4, 4}, 250, kByte).sum().item<int64_t>(), 4000);  // no uint8 wrap-around
  EXPECT_EQ(full({2}, 1 << 30, kInt).sum().item<int64_t>(), int64_t(1) << 31);
  // int64 overflow wraps around, as in PyTorch.
  EXPECT_EQ(full({64}, 2, kLong).prod().item<int64_t>(), 0);
  EXPECT_EQ(full({63}, 2, kLong).prod().item<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(
      full({2}, std::numeric_limits<int64_t>::max(), kLong).cumsum(0).view({2})[1].item<int64_t>(),
      -2);
  Tensor s32 = ones({3}, kInt).sum(kInt);
  EXPECT_EQ(s32.dtype(), kInt);
  EXPECT_EQ(s32.item<int64_t>(), 3);
  EXPECT_EQ(ones({2, 3}, kShort).sum({1}).dtype(), kLong);
  EXPECT_EQ(ones({2, 3}, kShort).prod(1, false, kDouble).dtype(), kDouble);
  EXPECT_EQ(full({3}, 7, kInt).cumsum(0).dtype(), kLong);
  EXPECT_EQ(ones({3}, kBool).cumsum(0).dtype(), kLong);
  EXPECT_EQ(values_of(ones({3}, kBool).cumsum(0)), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(full({3}, 2, kByte).cumprod(0).dtype(), kLong);
  EXPECT_EQ(ones({3}, kInt).cumsum(0, kShort).dtype(), kShort);
  EXPECT_EQ(count_nonzero(tensor({{1, 0}, {0, 0}})).dtype(), kLong);
}

TEST(ReductionDtypes, FloatSumsKeepTheDtypeAndDtypeArgumentConverts) {
  Tensor x = tensor({{1.5, -2.25}, {3.0, 0.5}});
  EXPECT_EQ(x.sum().dtype(), kFloat);
  EXPECT_EQ(x.to(kHalf).sum().dtype(), kHalf);
  EXPECT_EQ(x.to(kBFloat16).mean().dtype(), kBFloat16);
  EXPECT_EQ(x.to(kHalf).sum(kFloat).dtype(), kFloat);
  EXPECT_EQ(x.to(kHalf).sum(kFloat).item<double>(), 2.75);
  EXPECT_EQ(x.sum(kDouble).dtype(), kDouble);
  Tensor as_int = x.sum(kInt);  // converts first (1, -2, 3, 0), as PyTorch
  EXPECT_EQ(as_int.dtype(), kInt);
  EXPECT_EQ(as_int.item<int64_t>(), 2);
  EXPECT_EQ(x.mean(kDouble).dtype(), kDouble);
  EXPECT_EQ(arange(6).mean(kFloat).item<double>(), 2.5);
  Tensor h =
      full({4096}, 1.0, kHalf);  // 4096 is exact in half; a half accumulator would stall at 2048
  EXPECT_EQ(h.sum().item<double>(), 4096.0);
  EXPECT_EQ(h.to(kBFloat16).sum({0}).item<double>(), 4096.0);
}

TEST(ReductionDtypes, FloatOnlyOpsRejectIntegersNamingOpAndDtype) {
  Tensor i = arange(6);
  expect_error<TypeError>([&] { i.mean(); }, {"mean", "int64"});
  expect_error<TypeError>([&] { i.mean({0}); }, {"mean", "int64"});
  expect_error<TypeError>([&] { tensor({1.0, 2.0}).mean(kLong); }, {"mean", "int64"});
  expect_error<TypeError>([&] { ones({2}, kBool).mean(); }, {"mean", "bool"});
  expect_error<TypeError>([&] { i.var(); }, {"var", "int64"});
  expect_error<TypeError>([&] { i.std(); }, {"std", "int64"});
  expect_error<TypeError>([&] { var_mean(i); }, {"var_mean", "int64"});
  expect_error<TypeError>([&] { std_mean(i.to(kInt)); }, {"std_mean", "int32"});
  expect_error<TypeError>([&] { i.norm(); }, {"norm", "int64"});
  expect_error<TypeError>([&] { i.softmax(0); }, {"softmax", "int64"});
  expect_error<TypeError>([&] { i.log_softmax(0); }, {"log_softmax", "int64"});
  expect_error<TypeError>([&] { ones({2}, kBool).argmax(); }, {"argmax", "bool"});
  expect_error<TypeError>([&] { ones({2}, kBool).topk(1); }, {"topk", "bool"});
  expect_error<TypeError>([&] { ones({2}, kBool).median(); }, {"median", "bool"});
  // ...but converting inputs are fine.
  EXPECT_NEAR(i.softmax(0, kDouble).sum().item<double>(), 1.0, 1e-12);
  EXPECT_EQ(i.logsumexp({0}).dtype(), kFloat);
  EXPECT_NEAR(i.logsumexp({0}).item<double>(),
              std::log(std::exp(0.0) + std::exp(1.0) + std::exp(2.0) + std::exp(3.0) +
                       std::exp(4.0) + std::exp(5.0)),
              1e-5);
}

TEST(ReductionDtypes, AllAnyGiveBoolExceptUint8) {
  EXPECT_EQ(arange(3).all().dtype(), kBool);
  EXPECT_FALSE(arange(3).all().item<bool>());
  Tensor u = arange(3).to(kByte);
  EXPECT_EQ(u.all().dtype(), kByte);
  EXPECT_EQ(u.any(0).dtype(), kByte);
  EXPECT_EQ(u.any(0).item<int64_t>(), 1);
  EXPECT_TRUE(tensor({NAN, 1.0}).all().item<bool>());  // NaN is nonzero
}

// ---------------------------------------------------------------------------------------------
// NaN and ties.

TEST(ReductionNan, NanWinsMaxMinAndArgmaxTakesTheFirstNan) {
  Tensor x = tensor({1.0, NAN, 3.0, NAN, -1.0});
  EXPECT_TRUE(std::isnan(x.max().item<double>()));
  EXPECT_TRUE(std::isnan(x.amin().item<double>()));
  EXPECT_EQ(x.argmax().item<int64_t>(), 1);
  EXPECT_EQ(x.argmin().item<int64_t>(), 1);
  auto [v, i] = x.min(0);
  EXPECT_TRUE(std::isnan(v.item<double>()));
  EXPECT_EQ(i.item<int64_t>(), 1);
  EXPECT_TRUE(std::isnan(x.sum().item<double>()));
  EXPECT_TRUE(std::isnan(x.norm(INFINITY).item<double>()));
}

TEST(ReductionNan, NanWinsInEveryLoopShape) {
  // [300, 300]: sum over dim 0 takes the column-tile path, over dim 1 the dense-row path.
  Tensor x = sample({300, 300});
  x.data_ptr<float>()[5 * 300 + 7] = NAN;
  x.data_ptr<float>()[250 * 300 + 299] = NAN;
  with_thread_counts([&] {
    for (int64_t d : {0, 1}) {
      std::vector<double> m = values_of(x.amax({d}));
      std::vector<double> idx = values_of(x.argmax(d));
      for (int64_t j = 0; j < 300; ++j) {
        const bool nan_here = d == 0 ? (j == 7 || j == 299) : (j == 5 || j == 250);
        EXPECT_EQ(std::isnan(m[j]), nan_here) << "dim " << d << " index " << j;
        if (nan_here) {
          EXPECT_EQ(idx[j], d == 0 ? (j == 7 ? 5 : 250) : (j == 5 ? 7 : 299));
        }
      }
    }
    EXPECT_EQ(x.argmax().item<int64_t>(), 5 * 300 + 7);
  });
}

// ---------------------------------------------------------------------------------------------
// Statistics and normalisers.

TEST(ReductionStats, VarianceIsAccurateFarFromZero) {
  Tensor x = tensor({1e9 + 0.0, 1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0}, kDouble);
  EXPECT_NEAR(x.var().item<double>(), 5.0 / 3.0, 1e-9);
  EXPECT_NEAR(x.var(false).item<double>(), 1.25, 1e-9);
  // Long rows go through blocked two-pass moments: compare with the float64 formula.
  Tensor y = sample({3, 20000}, 3) + 1000.0;
  with_thread_counts([&] {
    std::vector<double> ref_mean = reference(y, {1}, 0, kFoldAdd);
    std::vector<double> x64 = values_of(y);
    std::vector<double> ref_var(3, 0);
    for (int r = 0; r < 3; ++r) {
      double m = ref_mean[r] / 20000;
      for (int k = 0; k < 20000; ++k)
        ref_var[r] += (x64[r * 20000 + k] - m) * (x64[r * 20000 + k] - m);
      ref_var[r] /= 19999;
    }
    expect_values_near(y.var(1), ref_var, 1e-5, "var rows");
    expect_values_near(y.t().var(0), ref_var, 1e-5, "var columns");
  });
}

// LibTorch's meanings: an int alone is a dim (t.var(1) reduces dim 1, not unbiased=true), a
// braced list is a dim list that stays alive for the call, a bool after the dims is unbiased.
TEST(ReductionStats, OverloadsMeanWhatLibTorchsMean) {
  Tensor x = tensor({{0.0, 1.0, 5.0}, {3.0, 3.0, 6.0}}, kDouble);
  const std::vector<double> rows_unbiased = {7.0, 3.0}, rows_biased = {14.0 / 3, 2.0};
  const std::vector<double> cols_unbiased = {4.5, 2.0, 0.5};
  expect_values_near(x.var(1), rows_unbiased, 1e-14, "x.var(1)");
  expect_values_near(x.var(0), cols_unbiased, 1e-14, "x.var(0)");
  expect_values_near(var(x, 1), rows_unbiased, 1e-14, "var(x, 1)");
  expect_values_near(x.std(0),
                     (std::vector<double>{std::sqrt(4.5), std::sqrt(2.0), std::sqrt(0.5)}), 1e-14,
                     "x.std(0)");
  EXPECT_EQ(values_of(ember::std(x, 0)), values_of(x.std(0)));
  expect_values_near(var(x, {1}, false), rows_biased, 1e-14, "var(x, {1}, false)");
  expect_values_near(x.var({1}, false), rows_biased, 1e-14, "x.var({1}, false)");
  expect_values_near(var(x, {1}, true, true), rows_unbiased, 1e-14, "var(x, {1}, true, true)");
  EXPECT_EQ(shape_of(var(x, {1}, true, true)), (std::vector<int64_t>{2, 1}));
  expect_values_near(var(x, {0, 1}, false), (std::vector<double>{13.0 / 3}), 1e-14,
                     "var(x, {0, 1}, false)");
  EXPECT_EQ(std::get<0>(var_mean(x, 1)).sizes().vec(), (std::vector<int64_t>{2}));
  expect_values_near(std::get<1>(std_mean(x, 0)), (std::vector<double>{1.5, 2.0, 5.5}), 1e-14,
                     "std::get<1>(std_mean(x, 0))");
  // A bool alone is unbiased, over every element.
  EXPECT_EQ(x.var(false).dim(), 0);
  EXPECT_NEAR(x.var(true).item<double>(), 5.2, 1e-14);
  // Dims as a vector, a variable or nullopt.
  std::vector<int64_t> dims = {1};
  expect_values_near(x.var(dims, true), rows_unbiased, 1e-14, "x.var(dims, true)");
  OptionalIntArrayRef none = std::nullopt;
  EXPECT_NEAR(x.var(none, std::optional<double>(0.0)).item<double>(), 13.0 / 3, 1e-14);
}

TEST(ReductionStats, CorrectionAndUnbiasedOverloads) {
  Tensor x = tensor({{0.0, 1.0, 2.0}, {3.0, 4.0, 5.0}});
  EXPECT_NEAR(values_of(x.var({1}, false))[0], 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(values_of(x.var({1}, true))[0], 1.0, 1e-6);
  EXPECT_NEAR(values_of(x.std({1}, true))[1], 1.0, 1e-6);
  EXPECT_NEAR(x.std(false).item<double>(), std::sqrt(17.5 / 6), 1e-6);
  // Correction at least the count: divisor clamps to 0 (inf), as PyTorch.
  EXPECT_TRUE(std::isinf(values_of(x.var({1}, std::optional<double>(3.0)))[0]));
  auto [v, m] = var_mean(x, {0}, std::optional<double>(0.0), true);
  EXPECT_EQ(shape_of(m), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values_of(m), (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(values_of(v), (std::vector<double>{2.25, 2.25, 2.25}));
  auto [s, m2] = std_mean(x);
  EXPECT_NEAR(s.item<double>(), std::sqrt(3.5), 1e-6);
  EXPECT_NEAR(m2.item<double>(), 2.5, 1e-6);
}

TEST(ReductionStats, NormsOfEveryP) {
  Tensor x = tensor({{0.0, 1.0, -2.0}, {3.0, -4.0, 0.0}});
  EXPECT_NEAR(x.norm().item<double>(), std::sqrt(30.0), 1e-5);
  EXPECT_NEAR(x.norm(1).item<double>(), 10.0, 1e-6);
  EXPECT_NEAR(x.norm(INFINITY).item<double>(), 4.0, 0);
  EXPECT_NEAR(x.norm(-INFINITY).item<double>(), 0.0, 0);
  EXPECT_NEAR(x.norm(0).item<double>(), 4.0, 0);
  EXPECT_NEAR(x.norm(3).item<double>(), std::cbrt(1 + 8 + 27 + 64.0), 1e-5);
  expect_values_near(x.norm(0.5, {0}), {3.0, 9.0, 2.0}, 1e-6, "norm p=0.5");
}

TEST(ReductionStats, LogsumexpIsStableAndHandlesInfiniteRows) {
  Tensor x =
      tensor({{1000.0, 1000.0}, {-INFINITY, -INFINITY}, {INFINITY, 1.0}, {NAN, 0.0}, {-1e30, 0.0}});
  std::vector<double> r = values_of(x.logsumexp({1}));
  EXPECT_NEAR(r[0], 1000.0 + std::log(2.0), 1e-3);
  EXPECT_EQ(r[1], -INFINITY);
  EXPECT_EQ(r[2], INFINITY);
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_NEAR(r[4], 0.0, 1e-6);
  EXPECT_NEAR(x.slice(0, 0, 1).logsumexp({0, 1}).item<double>(), 1000.0 + std::log(2.0), 1e-3);
}

// ---------------------------------------------------------------------------------------------
// Errors name the op and the bad value.

TEST(ReductionErrors, BadDimsAreIndexErrorsNamingTheOp) {
  Tensor x = sample({2, 3});
  expect_error<IndexError>([&] { x.sum({5}); }, {"sum", "5", "[-2, 1]"});
  expect_error<IndexError>([&] { x.mean({-3}); }, {"mean", "-3"});
  expect_error<IndexError>([&] { x.max(2); }, {"max", "2"});
  expect_error<IndexError>([&] { x.argmax(2); }, {"argmax", "2"});
  expect_error<IndexError>([&] { x.softmax(2); }, {"softmax", "2"});
  expect_error<IndexError>([&] { x.cumsum(-3); }, {"cumsum", "-3"});
  expect_error<IndexError>([&] { x.sort(3); }, {"sort", "3"});
  expect_error<IndexError>([&] { x.median(4); }, {"median", "4"});
  expect_error<IndexError>([&] { x.var(5); }, {"var", "5"});
  expect_error<IndexError>([&] { x.logsumexp({7}); }, {"logsumexp", "7"});
  expect_error<IndexError>([&] { x.prod(9); }, {"prod", "9"});
  expect_error<IndexError>([&] { x.all(2); }, {"all", "2"});
  expect_error<IndexError>([&] { count_nonzero(x, {3}); }, {"count_nonzero", "3"});
  expect_error<IndexError>([&] { x.topk(1, 2); }, {"topk", "2"});
}

TEST(ReductionErrors, RepeatedDimsAndBadK) {
  Tensor x = sample({2, 3});
  expect_error<Error>([&] { x.sum({1, 1}); }, {"sum", "dim 1 appears multiple times"});
  expect_error<Error>([&] { x.sum({1, -1}); }, {"sum", "dim 1 appears multiple times"});
  expect_error<Error>([&] { x.amax({0, -2}); }, {"amax", "dim 0 appears multiple times"});
  expect_error<Error>([&] { x.norm(2, {0, 0}); }, {"norm", "appears multiple times"});
  expect_error<Error>([&] { x.logsumexp({0, 0}); }, {"logsumexp", "appears multiple times"});
  expect_error<Error>(
      [&] {
        count_nonzero(x, {0, 0});
      },
      {"count_nonzero", "appears multiple times"});
  expect_error<Error>([&] { x.topk(4); }, {"topk", "k = 4", "size 3"});
  expect_error<Error>([&] { x.topk(-1); }, {"topk", "k = -1"});
}

}  // namespace reduction_test

namespace reduction_test {
// all/any split a long reduction over threads; their bool partial results once lived in a
// std::vector<bool>, whose packed bits made neighbouring threads' writes race (all() came out
// false about once in a thousand calls). Many calls on tensors just past the split threshold.
TEST(ReductionThreads, AllAnyPartialResultsDoNotRace) {
  const int saved = get_num_threads();
  set_num_threads(2);
  Tensor yes = ones({70000}, kBool), no = zeros({70000}, kBool);
  Tensor wide_yes = ones({20000, 16}, kBool);
  int wrong = 0;
  // A race shows as a wrong result now and then: many repetitions in the optimised build; under
  // the sanitizers (kernels at -O0, ~10x slower) a tenth, which still checks every access.
#if defined(__SANITIZE_ADDRESS__)
  const int reps = 300;
#else
  const int reps = 3000;
#endif
  for (int rep = 0; rep < reps; ++rep) {
    wrong += !yes.all().item<bool>();
    wrong += no.any().item<bool>();
    wrong += !wide_yes.all(/*dim=*/0).all().item<bool>();
  }
  set_num_threads(saved);
  EXPECT_EQ(wrong, 0);
}
}  // namespace reduction_test
