// Helpers of the reduction behaviour tests (reduction_test.cpp, reduction_dim_test.cpp): float64
// references, value comparisons, samples, thread-count sweeps.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"
#include "tests/support/threads.h"

namespace reduction_test {

using namespace ember;
using ember_test::expect_error;

inline std::vector<int64_t> shape_of(const Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

inline std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

/// Float64 reference of a reduction over `dims` of t (row-major output), with fold f from init.
/// The output offset advances as an odometer (no div/mod per element): the ASan build runs this
/// at -O0 over millions of elements.
template <class F>
std::vector<double> reference(const Tensor& t, std::vector<int64_t> dims, double init, F f) {
  const std::vector<double> x = values_of(t);
  const int64_t nd = t.dim();
  std::vector<bool> red(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) red[static_cast<size_t>(d < 0 ? d + nd : d)] = true;
  // out_stride[d]: how far the output offset moves per step along input dim d (0 if reduced).
  std::vector<int64_t> out_stride(static_cast<size_t>(nd), 0);
  int64_t out_n = 1;
  for (int64_t d = nd - 1; d >= 0; --d)
    if (!red[static_cast<size_t>(d)]) {
      out_stride[static_cast<size_t>(d)] = out_n;
      out_n *= t.size(d);
    }
  std::vector<double> out(static_cast<size_t>(out_n), init);
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t o = 0;
  for (double v : x) {
    out[static_cast<size_t>(o)] = f(out[static_cast<size_t>(o)], v);
    for (int64_t d = nd - 1; d >= 0; --d) {
      const size_t k = static_cast<size_t>(d);
      o += out_stride[k];
      if (++idx[k] < t.size(d)) break;
      o -= out_stride[k] * idx[k];
      idx[k] = 0;
    }
  }
  return out;
}

inline void expect_values_near(const Tensor& actual, const std::vector<double>& expected,
                               double rtol, const std::string& what) {
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

inline const auto kFoldAdd = [](double a, double x) { return a + x; };
inline const auto kFoldAddAbs = [](double a, double x) { return a + std::abs(x); };

/// A float sum is right when its error is a few eps of the sum of magnitudes (cancellation can
/// make any relative error of the result itself).
/// The float64 sums and sums of magnitudes a float sum is checked against.
struct SumReference {
  SumReference(const Tensor& x, std::vector<int64_t> dims)
      : sum(reference(x, dims, 0, kFoldAdd)), magnitude(reference(x, dims, 0, kFoldAddAbs)) {}
  std::vector<double> sum, magnitude;
};

inline void expect_sum_near(const Tensor& actual, const SumReference& ref,
                            const std::string& what) {
  const std::vector<double> a = values_of(actual), &e = ref.sum, &mag = ref.magnitude;
  ASSERT_EQ(a.size(), e.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - e[i]) <= 1e-6 * mag[i] + 1e-6) && bad++ < 3)
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", expected " << e[i]
                    << " (sum of magnitudes " << mag[i] << ")";
}

inline void expect_sum_near(const Tensor& actual, const Tensor& x, std::vector<int64_t> dims,
                            const std::string& what) {
  expect_sum_near(actual, SumReference(x, std::move(dims)), what);
}
inline const auto kFoldMax = [](double a, double x) { return std::isnan(a) || a > x ? a : x; };

/// A [A, B, C] float tensor with values that make every order of summation distinguishable.
inline Tensor sample(std::vector<int64_t> shape, uint64_t seed = 1) {
  Generator g(seed);
  return randn(shape, g);
}

using ember_test::with_thread_counts;

}  // namespace reduction_test
