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
inline std::vector<double> reference(const Tensor& t, std::vector<int64_t> dims, double init,
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
inline void expect_sum_near(const Tensor& actual, const Tensor& x, std::vector<int64_t> dims,
                            const std::string& what) {
  std::vector<double> a = values_of(actual), e = reference(x, dims, 0, kFoldAdd),
                      mag = reference(x, dims, 0, kFoldAddAbs);
  ASSERT_EQ(a.size(), e.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - e[i]) <= 1e-6 * mag[i] + 1e-6) && bad++ < 3)
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", expected " << e[i]
                    << " (sum of magnitudes " << mag[i] << ")";
}
inline const auto kFoldMax = [](double a, double x) { return std::isnan(a) || a > x ? a : x; };

/// A [A, B, C] float tensor with values that make every order of summation distinguishable.
inline Tensor sample(std::vector<int64_t> shape, uint64_t seed = 1) {
  Generator g(seed);
  return randn(shape, g);
}

using ember_test::with_thread_counts;

}  // namespace reduction_test
