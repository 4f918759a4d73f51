// Helpers shared by the autograd behaviour tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace autograd_test {

/// Expects `t` (any float dtype, any layout) to hold `expected` in row-major order.
inline void expect_values(const ember::Tensor& t, std::vector<double> expected,
                          double tol = 1e-12) {
  ASSERT_TRUE(t.defined());
  ember::Tensor c = t.to(ember::kDouble).contiguous();
  ASSERT_EQ(c.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(c.data_ptr<double>()[i], expected[i], tol) << "element " << i;
}

/// The message of the ember::Error `f` throws, or "" when it throws none.
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

/// A float64 leaf that requires grad.
inline ember::Tensor leaf(std::initializer_list<double> v) {
  return ember::tensor(std::vector<double>(v), ember::kDouble).requires_grad_();
}

}  // namespace autograd_test
