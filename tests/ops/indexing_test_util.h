// Helpers of the indexing tests (indexing_test.cpp, gather_scatter_test.cpp): arange tensors,
// index lists, storage identity and the list of every dtype.
#pragma once

#include <vector>

#include "ember/ember.h"

namespace indexing_test {

using namespace ember;

inline Tensor ar(IntArrayRef shape, ScalarType dtype = kFloat) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n, kLong).to(dtype).view(shape);
}
inline Tensor idx(std::initializer_list<int64_t> v) {
  return tensor(TensorDataContainer(std::vector<int64_t>(v)), kLong);
}

inline bool same_storage(const Tensor& a, const Tensor& b) {
  return a.unsafeGetTensorImpl()->storage() == b.unsafeGetTensorImpl()->storage();
}

using V = std::vector<int64_t>;
inline V vec(IntArrayRef a) { return a.vec(); }

inline const ScalarType kAllTypes[] = {kByte, kChar,  kShort,  kInt,  kLong,
                                       kHalf, kFloat, kDouble, kBool, kBFloat16};

}  // namespace indexing_test
