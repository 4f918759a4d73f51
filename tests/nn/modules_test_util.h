// Helpers the layer-module tests (tests/nn/modules_*_test.cpp) share.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <sstream>
#include <string>

#include "ember/ember.h"
#include "ember/nn.h"

namespace ember_test {

/// Expects `f` to throw an E whose message contains every one of `parts`.
template <class E = ember::Error, class Fn>
void expect_error(Fn&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << *parts.begin() << "'";
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

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
