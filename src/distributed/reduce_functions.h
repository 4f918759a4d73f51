// The element-wise reductions the Gloo algorithms apply to two received buffers, one per
// (dtype, ReduceOp): c[i] = op(a[i], b[i]). float16 and bfloat16 reduce in float and round once
// per step, as PyTorch's Gloo backend does; bool reduces as logical or (SUM, MAX) and and
// (PRODUCT, MIN). AVG reduces as SUM: the caller divides by the group size afterwards.
#pragma once

#include <cstddef>
#include <functional>

#include "ember/core/scalar_type.h"
#include "ember/distributed/process_group.h"

namespace ember {
namespace distributed {

using ReduceFn = std::function<void(void*, const void*, const void*, size_t)>;

ReduceFn reduce_function(ScalarType dtype, ReduceOp op);

}  // namespace distributed
}  // namespace ember
