// The element-wise reductions the Gloo algorithms apply to two received buffers, one per
// (dtype, ReduceOp): c[i] = op(a[i], b[i]). float16 and bfloat16 reduce in float and round once
// per step, as PyTorch's Gloo backend does; bool reduces as logical or (SUM, MAX) and and
// (PRODUCT, MIN). AVG reduces as SUM: the caller divides by the group size afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ember/core/scalar_type.h"
#include "ember/distributed/process_group.h"

namespace ember {
namespace distributed {

using ReduceFn = std::function<void(void*, const void*, const void*, size_t)>;

ReduceFn reduce_function(ScalarType dtype, ReduceOp op);

/// The same reductions as plain functions, x[i] = op(x[i], y[i]), the form Gloo's bound-buffer
/// algorithms take (gloo_blocking_collectives.cpp). Instantiated for float, double, int32_t and
/// int64_t.
template <class T>
using InPlaceReduce = void (*)(T* x, const T* y, size_t n);
template <class T>
InPlaceReduce<T> in_place_reduce(ReduceOp op);

}  // namespace distributed
}  // namespace ember
