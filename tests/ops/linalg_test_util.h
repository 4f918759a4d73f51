// Helpers shared by the linalg test files (linalg_test.cpp, linalg_decomp_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

namespace linalg_test {

using ember_test::expect_error;

inline std::vector<int64_t> shape_of(const ember::Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

// Standard normal samples from a generator seeded with `seed`.
inline ember::Tensor sample(std::vector<int64_t> shape, ember::ScalarType dtype = ember::kFloat,
                            uint64_t seed = 1) {
  ember::Generator g(seed);
  return ember::randn(shape, g, ember::TensorOptions().dtype(dtype));
}

}  // namespace linalg_test
