// Helpers the layer-module tests (tests/nn/modules_*_test.cpp) share.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <sstream>
#include <string>

#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/support/expect_error.h"

namespace ember_test {

/// What pretty_print writes for `module`.
inline std::string printed(const ember::nn::Module& module) {
  std::ostringstream s;
  module.pretty_print(s);
  return s.str();
}

/// Bitwise-equal tensors (same sizes, dtype and values): a module and its functional form run
/// the same code, so nothing looser is needed.
inline void expect_same(const ember::Tensor& actual, const ember::Tensor& expected,
                        const std::string& what) {
  ASSERT_TRUE(actual.defined()) << what;
  EXPECT_EQ(actual.dtype(), expected.dtype()) << what;
  EXPECT_TRUE(ember::equal(actual, expected)) << what << "\nactual:\n"
                                              << actual << "\nexpected:\n"
                                              << expected;
}

}  // namespace ember_test
