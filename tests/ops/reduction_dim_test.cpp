// Along-a-dim reductions: argmax ties across threads, sort, median, softmax and scans, against
// float64 references and their NaN rules.
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

namespace {

TEST(ReductionNan, ArgmaxTiesPickTheFirstIndexEvenWhenSplitOverThreads) {
  Tensor x = zeros({1 << 20});
  float* p = x.data_ptr<float>();
  p[700000] = p[300000] = 1.0f;
  p[900000] = p[100000] = -1.0f;
  with_thread_counts([&] {
    EXPECT_EQ(x.argmax().item<int64_t>(), 300000);
    EXPECT_EQ(x.argmin().item<int64_t>(), 100000);
    EXPECT_EQ(std::get<1>(x.max(0)).item<int64_t>(), 300000);
  });
  p[800000] = p[950000] = NAN;
  with_thread_counts([&] { EXPECT_EQ(x.argmax().item<int64_t>(), 800000); });
  Tensor ties = tensor({{3, 1, 3, 1}, {2, 2, 2, 2}});
  EXPECT_EQ(values_of(ties.argmax(1)), (std::vector<double>{0, 0}));
  EXPECT_EQ(values_of(ties.argmin(1)), (std::vector<double>{1, 0}));
  // Column-tile path: ties down a column keep the first row.
  Tensor cols = zeros({100, 40});
  for (int j = 0; j < 40; ++j)
    cols.data_ptr<float>()[60 * 40 + j] = cols.data_ptr<float>()[30 * 40 + j] = 1.0f;
  for (double v : values_of(cols.argmax(0))) EXPECT_EQ(v, 30);
}

TEST(ReductionNan, SortIsStableAndPutsNanAfterInf) {
  Tensor x = tensor({2.0, NAN, 1.0, 2.0, -INFINITY, 1.0, INFINITY});
  auto [v, i] = x.sort();
  EXPECT_EQ(values_of(i), (std::vector<double>{4, 2, 5, 0, 3, 6, 1}));
  auto [vd, id] = x.sort(0, true);
  EXPECT_EQ(values_of(id), (std::vector<double>{1, 6, 0, 3, 2, 5, 4}));
  EXPECT_EQ(values_of(x.argsort(-1, true)), values_of(id));
  auto [tv, ti] = x.topk(3);
  // NaN counts as largest; of the tied 2.0s, PyTorch's selection (nth_element) picks index 3.
  EXPECT_EQ(values_of(ti), (std::vector<double>{1, 6, 3}));
  auto [sv, si] = x.topk(3, 0, false);
  EXPECT_EQ(values_of(si), (std::vector<double>{4, 2, 5}));
}

TEST(ReductionNan, MedianIsTheLowerMedianAndNanPropagates) {
  EXPECT_EQ(tensor({4.0, 1.0, 3.0, 2.0}).median().item<double>(), 2.0);
  EXPECT_EQ(tensor({5, 1, 3}).median().item<int64_t>(), 3);
  auto [v, i] = tensor({{1.0, NAN, 3.0, NAN}, {2.0, -1.0, 0.0, 7.0}}).median(1);
  EXPECT_TRUE(std::isnan(values_of(v)[0]));
  EXPECT_EQ(values_of(i), (std::vector<double>{1, 2}));
  EXPECT_TRUE(std::isnan(tensor({1.0, NAN}).median().item<double>()));
  // Ties: the element of rank (n - 1) / 2 in (value, index) order, as PyTorch.
  auto [tv, ti] = tensor({{2.0, 1.0, 2.0, 1.0, 2.0, 1.0}}).median(1);
  EXPECT_EQ(values_of(ti), (std::vector<double>{5}));
}

TEST(ReductionSoftmax, RowsAndColumnsMatchFloat64) {
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{5, 1000}, {3, 37}, {7, 70, 3}, {4, 9, 130}}) {
    Tensor x = sample(shape, 11) * 10.0;
    for (int64_t d = 0; d < x.dim(); ++d) {
      SCOPED_TRACE(::testing::PrintToString(shape) + " dim " + std::to_string(d));
      Tensor x64 = x.to(kDouble);
      Tensor m = x64.amax({d}, true);
      Tensor e = (x64 - m).exp();
      Tensor ref = e / e.sum({d}, true);
      EXPECT_TRUE(allclose(x.softmax(d).to(kDouble), ref, 1e-5, 1e-7));
      EXPECT_TRUE(allclose(x.log_softmax(d).to(kDouble), ref.log(), 1e-5, 1e-5));
      EXPECT_TRUE(
          allclose(x.transpose(0, d).softmax(0).to(kDouble), ref.transpose(0, d), 1e-5, 1e-7));
    }
  }
}

TEST(ReductionSoftmax, ExtremeValues) {
  Tensor x = tensor(
      {{1000.0, 1001.0, -INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, {-100.0, 0.0, -90.0}});
  std::vector<double> s = values_of(x.softmax(1));
  EXPECT_NEAR(s[0], 1 / (1 + std::exp(1.0)), 1e-6);
  EXPECT_EQ(s[2], 0.0);
  EXPECT_TRUE(std::isnan(s[3]));  // all -inf: nan, as PyTorch
  EXPECT_NEAR(s[7], 1.0, 1e-6);
  std::vector<double> l = values_of(x.log_softmax(1));
  EXPECT_EQ(l[2], -INFINITY);
  EXPECT_NEAR(l[6], -100.0, 1e-4);
  EXPECT_TRUE(std::isnan(values_of(tensor({1.0, NAN}).softmax(0))[0]));  // NaN spreads over the row
}

TEST(ReductionScan, CumsumAndCumprodAlongEachDim) {
  Tensor x = sample({4, 70, 3}, 5);
  for (int64_t d = 0; d < 3; ++d) {
    Tensor c = x.cumsum(d);
    Tensor c64 = x.to(kDouble).cumsum(d);
    // The last slice along d is the sum over d.
    EXPECT_TRUE(
        allclose(c.select(d, x.size(d) - 1).to(kDouble), x.to(kDouble).sum({d}), 1e-5, 1e-5));
    EXPECT_TRUE(allclose(c.to(kDouble), c64, 1e-5, 1e-5));
    EXPECT_TRUE(allclose(x.transpose(0, d).cumsum(0), c.transpose(0, d), 1e-6, 1e-6));
  }
  Tensor p = tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(values_of(p.cumprod(1)), (std::vector<double>{1, 2, 6, 4, 20, 120}));
  EXPECT_EQ(values_of(p.cumprod(0)), (std::vector<double>{1, 2, 3, 4, 10, 18}));
}

TEST(ReductionSort, LongRowsAndColumnsAreSorted) {
  Tensor x = sample({3, 500}, 9);
  for (int64_t d : {0, 1}) {
    auto [v, i] = x.sort(d);
    // v is x permuted by i along d, and ascending.
    std::vector<double> xv = values_of(x), vv = values_of(v), iv = values_of(i);
    for (int64_t k = 0; k < 1500; ++k) {
      const int64_t r = k / 500, col = k % 500;
      const int64_t src = d == 1 ? r * 500 + int64_t(iv[k]) : int64_t(iv[k]) * 500 + col;
      ASSERT_EQ(vv[k], xv[src]) << "dim " << d << " element " << k;
    }
    Tensor diffs = v.narrow(d, 1, v.size(d) - 1) - v.narrow(d, 0, v.size(d) - 1);
    EXPECT_GE(diffs.amin().item<double>(), 0.0);
    EXPECT_TRUE(equal(std::get<0>(i.sort(d)), d == 1 ? arange(500).expand({3, 500})
                                                     : arange(3).unsqueeze(1).expand({3, 500})));
    auto [tv, ti] = x.topk(3, d);
    EXPECT_TRUE(equal(tv, std::get<0>(x.sort(d, true)).narrow(d, 0, 3)));
  }
}

}  // namespace
