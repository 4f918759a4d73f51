// Size arithmetic that cannot wrap. Every size, stride, element-count and byte-count computation
// from user input goes through these: a factory or view whose numbers wrapped past int64 once
// returned a tensor with too little storage behind it (an API fuzzer found them; issue #14).
#pragma once

#include <cstddef>
#include <cstdint>

#include "src/core/check.h"

namespace ember::detail {

/// a * b, or an Error "<op>: <what> overflows int64 (a * b)".
inline int64_t checked_mul(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  EMBER_CHECK_VALUE(!__builtin_mul_overflow(a, b, &r), "{}: {} overflows int64 ({} * {})", op, what,
                    a, b);
  return r;
}
/// a + b, or an Error "<op>: <what> overflows int64 (a + b)".
inline int64_t checked_add(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  EMBER_CHECK_VALUE(!__builtin_add_overflow(a, b, &r), "{}: {} overflows int64 ({} + {})", op, what,
                    a, b);
  return r;
}

/// The number of elements of non-negative `sizes`, or an Error naming the op and the sizes.
inline int64_t checked_numel(IntArrayRef sizes, const char* op) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) {
    if (s == 0) return 0;  // an empty tensor, however large its other dims
    overflow |= __builtin_mul_overflow(n, s, &n);
  }
  EMBER_CHECK_VALUE(!overflow, "{}: a tensor of sizes {} would have more than 2^63 - 1 elements",
                    op, sizes);
  return n;
}

/// The bytes of `numel` elements of `itemsize`, or an Error when they exceed what an allocation
/// can address (PTRDIFF_MAX).
inline size_t checked_nbytes(int64_t numel, int64_t itemsize, IntArrayRef sizes, const char* op) {
  int64_t bytes;
  EMBER_CHECK_VALUE(!__builtin_mul_overflow(numel, itemsize, &bytes),
                    "{}: a tensor of sizes {} would take more than 2^63 - 1 bytes", op, sizes);
  return static_cast<size_t>(bytes);
}

/// The element count a strided layout reaches from its first element: 1 + sum((size - 1) *
/// stride) over non-negative sizes and strides, 0 when a size is 0; an Error on overflow.
inline int64_t checked_extent(IntArrayRef sizes, IntArrayRef strides, const char* op) {
  int64_t extent = 1;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    int64_t span;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &span);
    overflow |= __builtin_add_overflow(extent, span, &extent);
  }
  EMBER_CHECK_VALUE(!overflow,
                    "{}: sizes {} with strides {} reach past element 2^63 - 1 of the storage", op,
                    sizes, strides);
  return extent;
}

}  // namespace ember::detail
