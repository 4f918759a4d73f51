// Helpers shared by the view and shape test files (view_test.cpp, shape_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ember/ember.h"

namespace shape_test {

using V = std::vector<int64_t>;

// 0, 1, 2, ... in `shape`, converted to `dtype`.
inline ember::Tensor ar(ember::IntArrayRef shape, ember::ScalarType dtype = ember::kFloat) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return ember::arange(n, ember::kLong).to(dtype).view(shape);
}

inline bool same_storage(const ember::Tensor& a, const ember::Tensor& b) {
  return a.unsafeGetTensorImpl()->storage() == b.unsafeGetTensorImpl()->storage();
}

inline V vec(ember::IntArrayRef a) { return a.vec(); }

}  // namespace shape_test
