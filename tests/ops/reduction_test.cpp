// Reductions, scans, softmax and sorting: forward results against PyTorch's golden data
// (tests/golden/reduction.golden), then the behaviour golden data cannot show: every loop shape of
// the kernels against a float64 reference, dtype rules, NaN rules, empty inputs and error text.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "ember/ember.h"
#include "tests/support/golden.h"

using namespace ember;

namespace {

// ---------------------------------------------------------------------------------------------
// Golden data: one runner per op, calling Ember the way the case's `call` line says (argument
// conventions: tests/golden/generate.py, gen_reduction).

using Outs = std::vector<Tensor>;
using Runner = std::function<Outs(const GoldenCase&)>;

Outs two(const std::tuple<Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }
bool keepdim(const GoldenCase& c) { return c.has_flag("keepdim"); }
IntArrayRef dims(const GoldenCase& c) { return c.int_lists.at(0); }

const std::map<std::string, Runner>& runners() {
  static const std::map<std::string, Runner> table = {
      {"sum",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? sum(c.arg(0)) : sum(c.arg(0), dims(c), keepdim(c))};
       }},
      {"mean",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? mean(c.arg(0)) : mean(c.arg(0), dims(c), keepdim(c))};
       }},
      {"prod",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? prod(c.arg(0)) : prod(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"max",
       [](const GoldenCase& c) -> Outs {
         return c.ints.empty() ? Outs{max(c.arg(0))} : two(max(c.arg(0), c.ints[0], keepdim(c)));
       }},
      {"min",
       [](const GoldenCase& c) -> Outs {
         return c.ints.empty() ? Outs{min(c.arg(0))} : two(min(c.arg(0), c.ints[0], keepdim(c)));
       }},
      {"amax",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? amax(c.arg(0)) : amax(c.arg(0), dims(c), keepdim(c))};
       }},
      {"amin",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? amin(c.arg(0)) : amin(c.arg(0), dims(c), keepdim(c))};
       }},
      {"argmax",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? argmax(c.arg(0)) : argmax(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"argmin",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? argmin(c.arg(0)) : argmin(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"var",
       [](const GoldenCase& c) -> Outs {
         std::optional<IntArrayRef> d;
         if (!c.int_lists.empty()) d = dims(c);
         return {var(c.arg(0), d, c.scalars.at(0), keepdim(c))};
       }},
      {"std",
       [](const GoldenCase& c) -> Outs {
         std::optional<IntArrayRef> d;
         if (!c.int_lists.empty()) d = dims(c);
         return {ember::std(c.arg(0), d, c.scalars.at(0), keepdim(c))};
       }},
      {"norm",
       [](const GoldenCase& c) -> Outs {
         const Scalar& p = c.scalar_args.at(0);
         return {c.int_lists.empty() ? norm(c.arg(0), p) : norm(c.arg(0), p, dims(c), keepdim(c))};
       }},
      {"logsumexp",
       [](const GoldenCase& c) -> Outs { return {logsumexp(c.arg(0), dims(c), keepdim(c))}; }},
      {"softmax", [](const GoldenCase& c) -> Outs { return {softmax(c.arg(0), c.ints.at(0))}; }},
      {"log_softmax",
       [](const GoldenCase& c) -> Outs { return {log_softmax(c.arg(0), c.ints.at(0))}; }},
      {"cumsum", [](const GoldenCase& c) -> Outs { return {cumsum(c.arg(0), c.ints.at(0))}; }},
      {"cumprod", [](const GoldenCase& c) -> Outs { return {cumprod(c.arg(0), c.ints.at(0))}; }},
      {"all",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? all(c.arg(0)) : all(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"any",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? any(c.arg(0)) : any(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"topk",
       [](const GoldenCase& c) -> Outs {
         return two(topk(c.arg(0), c.ints.at(0), c.ints.at(1), !c.has_flag("smallest")));
       }},
      {"sort",
       [](const GoldenCase& c) -> Outs {
         return two(sort(c.arg(0), c.ints.at(0), c.has_flag("descending")));
       }},
      {"argsort",
       [](const GoldenCase& c) -> Outs {
         return {argsort(c.arg(0), c.ints.at(0), c.has_flag("descending"))};
       }},
      {"median",
       [](const GoldenCase& c) -> Outs {
         return c.ints.empty() ? Outs{median(c.arg(0))}
                               : two(median(c.arg(0), c.ints[0], keepdim(c)));
       }},
  };
  return table;
}

const std::vector<GoldenCase>& golden() {
  static const std::vector<GoldenCase> cases = load_golden("reduction");
  return cases;
}

std::vector<std::string> runner_names() {
  std::vector<std::string> names;
  for (const auto& kv : runners()) names.push_back(kv.first);
  return names;
}

class ReductionGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ReductionGolden, MatchesPyTorch) {
  const std::string& op = GetParam();
  auto cases = golden_cases_for(golden(), op);
  ASSERT_FALSE(cases.empty()) << "no golden case for " << op;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.location + " " + c.call);
    Outs actual;
    try {
      actual = runners().at(op)(c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << " threw: " << e.what();
      continue;
    }
    ASSERT_EQ(actual.size(), c.outs.size()) << c.name;
    for (size_t i = 0; i < actual.size(); ++i)
      expect_close(actual[i], c.outs[i], c.name + (i ? " (indices)" : ""));
  }
}

// The same cases with one thread: the split-over-threads paths must not change results.
TEST_P(ReductionGolden, MatchesPyTorchSingleThreaded) {
  const int saved = get_num_threads();
  set_num_threads(1);
  for (const GoldenCase& c : golden_cases_for(golden(), GetParam())) {
    SCOPED_TRACE(c.location + " " + c.call);
    Outs actual = runners().at(GetParam())(c);
    for (size_t i = 0; i < actual.size(); ++i) expect_close(actual[i], c.outs[i], c.name);
  }
  set_num_threads(saved);
}

INSTANTIATE_TEST_SUITE_P(Reduction, ReductionGolden, ::testing::ValuesIn(runner_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(ReductionGoldenCoverage, EveryGoldenOpHasARunner) {
  std::set<std::string> ops;
  for (const GoldenCase& c : golden()) ops.insert(c.op());
  EXPECT_GE(ops.size(), 20u);
  for (const std::string& op : ops) EXPECT_TRUE(runners().count(op)) << "no runner for " << op;
}

// ---------------------------------------------------------------------------------------------
// Helpers for the behaviour tests.

template <class E = Error, class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "expected an error mentioning " << *parts.begin();
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const char* p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

std::vector<int64_t> shape_of(const Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

/// Float64 reference of a reduction over `dims` of t (row-major output), with fold f from init.
std::vector<double> reference(const Tensor& t, std::vector<int64_t> dims, double init,
                              const std::function<double(double, double)>& f) {
  std::vector<double> x = values_of(t);
  const int64_t nd = t.dim();
  std::vector<bool> red(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) red[static_cast<size_t>(d < 0 ? d + nd : d)] = true;
  int64_t out_n = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (!red[d]) out_n *= t.size(d);
  std::vector<double> out(static_cast<size_t>(out_n), init);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    int64_t rem = i, o = 0, scale = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t idx = rem % t.size(d);
      rem /= t.size(d);
      if (!red[d]) {
        o += idx * scale;
        scale *= t.size(d);
      }
    }
    out[o] = f(out[o], x[i]);
  }
  return out;
}

void expect_values_near(const Tensor& actual, const std::vector<double>& expected, double rtol,
                        const std::string& what) {
  std::vector<double> a = values_of(actual);
  ASSERT_EQ(a.size(), expected.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = expected[i];
    const bool ok =
        std::isnan(e) ? std::isnan(a[i]) : std::abs(a[i] - e) <= rtol * (1 + std::abs(e));
    if (!ok && bad++ < 3)
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", expected " << e;
  }
}

const auto kAdd = [](double a, double x) { return a + x; };
const auto kAddAbs = [](double a, double x) { return a + std::abs(x); };

/// A float sum is right when its error is a few eps of the sum of magnitudes (cancellation can
/// make any relative error of the result itself).
void expect_sum_near(const Tensor& actual, const Tensor& x, std::vector<int64_t> dims,
                     const std::string& what) {
  std::vector<double> a = values_of(actual), e = reference(x, dims, 0, kAdd),
                      mag = reference(x, dims, 0, kAddAbs);
  ASSERT_EQ(a.size(), e.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - e[i]) <= 1e-6 * mag[i] + 1e-6) && bad++ < 3)
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", expected " << e[i]
                    << " (sum of magnitudes " << mag[i] << ")";
}
const auto kMax = [](double a, double x) { return std::isnan(a) || a > x ? a : x; };

/// A [A, B, C] float tensor with values that make every order of summation distinguishable.
Tensor sample(std::vector<int64_t> shape, uint64_t seed = 1) {
  Generator g(seed);
  return randn(shape, g);
}

// Runs f with 1 and with 2 threads.
template <class F>
void with_thread_counts(F&& f) {
  const int saved = get_num_threads();
  for (int t : {1, 2}) {
    set_num_threads(t);
    SCOPED_TRACE("threads=" + std::to_string(t));
    f();
  }
  set_num_threads(saved);
}

// ---------------------------------------------------------------------------------------------
// Loop shapes: dense inner rows, outer (column tiles), strided, split over threads.

TEST(ReductionLoops, SumOverEveryDimComboOfContiguousAndPermutedInputs) {
  Tensor base = sample({9, 70, 300});  // 300 > a 256-wide tile: partial tiles too
  const std::vector<std::vector<int64_t>> combos = {{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {}};
  with_thread_counts([&] {
    for (const Tensor& x : {base, base.permute({2, 0, 1}), base.transpose(0, 2),
                            base.slice(2, 1, 300, 3), base.select(1, 5).unsqueeze(1)}) {
      for (const auto& d : combos) {
        SCOPED_TRACE(::testing::PrintToString(shape_of(x)) + " dims " +
                     ::testing::PrintToString(d));
        expect_sum_near(x.sum(d), x, d, "sum");
        expect_values_near(x.amax(d), reference(x, d, -INFINITY, kMax), 0, "amax");
      }
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

TEST(ReductionLoops, OuterSumOfManyRowsIsAccurate) {
  Tensor x = full({1 << 20, 8}, 0.1f);  // sum over dim 0: vectorised across the 8 columns
  const double expected = double(0.1f) * (1 << 20);
  with_thread_counts([&] {
    for (double v : values_of(x.sum({0}))) EXPECT_NEAR(v, expected, expected * 1e-5);
  });
}

TEST(ReductionLoops, LargeFullReductionsMatchFloat64) {
  Tensor x = sample({3, 1 << 19}, 7);
  with_thread_counts([&] {
    expect_sum_near(x.sum(), x, {}, "sum");
    expect_sum_near(x.sum({1}), x, {1}, "sum rows");
    expect_sum_near(x.t().sum({0}), x, {1}, "sum rows, transposed");
    expect_values_near(
        x.amin(), reference(x, {}, INFINITY, [](double a, double v) { return std::min(a, v); }), 0,
        "amin");
    std::vector<double> sq = reference(x, {}, 0, [](double a, double v) { return a + v * v; });
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
  EXPECT_EQ(shape_of(x.var(std::optional<IntArrayRef>(IntArrayRef{1}), 1.0, true)),
            (std::vector<int64_t>{2, 1, 4}));
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
  for (double v : values_of(e.var(std::optional<IntArrayRef>(IntArrayRef{0}))))
    EXPECT_TRUE(std::isnan(v));
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
  EXPECT_EQ(values_of(ti), (std::vector<double>{1, 6, 0}));  // NaN counts as largest
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

// ---------------------------------------------------------------------------------------------
// Statistics and normalisers.

TEST(ReductionStats, VarianceIsAccurateFarFromZero) {
  Tensor x = tensor({1e9 + 0.0, 1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0}, kDouble);
  EXPECT_NEAR(x.var().item<double>(), 5.0 / 3.0, 1e-9);
  EXPECT_NEAR(x.var(false).item<double>(), 1.25, 1e-9);
  // Long rows go through blocked two-pass moments: compare with the float64 formula.
  Tensor y = sample({3, 20000}, 3) + 1000.0;
  with_thread_counts([&] {
    std::vector<double> ref_mean = reference(y, {1}, 0, kAdd);
    std::vector<double> x64 = values_of(y);
    std::vector<double> ref_var(3, 0);
    for (int r = 0; r < 3; ++r) {
      double m = ref_mean[r] / 20000;
      for (int k = 0; k < 20000; ++k)
        ref_var[r] += (x64[r * 20000 + k] - m) * (x64[r * 20000 + k] - m);
      ref_var[r] /= 19999;
    }
    expect_values_near(y.var(std::optional<IntArrayRef>(IntArrayRef{1})), ref_var, 1e-5,
                       "var rows");
    expect_values_near(y.t().var(std::optional<IntArrayRef>(IntArrayRef{0})), ref_var, 1e-5,
                       "var columns");
  });
}

TEST(ReductionStats, CorrectionAndUnbiasedOverloads) {
  Tensor x = tensor({{0.0, 1.0, 2.0}, {3.0, 4.0, 5.0}});
  EXPECT_NEAR(values_of(x.var({1}, false))[0], 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(values_of(x.var({1}, true))[0], 1.0, 1e-6);
  EXPECT_NEAR(values_of(x.std({1}, true))[1], 1.0, 1e-6);
  EXPECT_NEAR(x.std(false).item<double>(), std::sqrt(17.5 / 6), 1e-6);
  // Correction at least the count: divisor clamps to 0 (inf), as PyTorch.
  EXPECT_TRUE(std::isinf(values_of(x.var(std::optional<IntArrayRef>(IntArrayRef{1}), 3.0))[0]));
  auto [v, m] = var_mean(x, std::optional<IntArrayRef>(IntArrayRef{0}), 0.0, true);
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
  expect_error<IndexError>([&] { x.var(std::optional<IntArrayRef>(IntArrayRef{5})); },
                           {"var", "5"});
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

}  // namespace

namespace {
// all/any split a long reduction over threads; their bool partial results once lived in a
// std::vector<bool>, whose packed bits made neighbouring threads' writes race (all() came out
// false about once in a thousand calls). Many calls on tensors just past the split threshold.
TEST(ReductionThreads, AllAnyPartialResultsDoNotRace) {
  const int saved = get_num_threads();
  set_num_threads(2);
  Tensor yes = ones({70000}, kBool), no = zeros({70000}, kBool);
  Tensor wide_yes = ones({20000, 16}, kBool);
  int wrong = 0;
  for (int rep = 0; rep < 3000; ++rep) {
    wrong += !yes.all().item<bool>();
    wrong += no.any().item<bool>();
    wrong += !wide_yes.all(/*dim=*/0).all().item<bool>();
  }
  set_num_threads(saved);
  EXPECT_EQ(wrong, 0);
}
}  // namespace
