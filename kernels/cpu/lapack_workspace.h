// The workspace size to pass LP64 LAPACK (lapack_kernels.cpp): the optimal size from an
// lwork = -1 query, never below the routine's documented minimum (computed here in 64 bits).
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace ember::lapack {

/// LP64 LAPACK counts workspaces in 32-bit ints, and past INT_MAX its own size arithmetic wraps
/// (a wrapped query looks small, and the routine then writes past the buffer), so a matrix whose
/// workspace may not fit gets no size (the kernel throws). `headroom` covers the blocked
/// algorithms' extra (panel widths x dims) above the minimum. A float query is bumped one ulp
/// first: ssyevd returns its exact minimum, and above 2^24 the float rounds it down.
template <class T>
std::optional<int> workspace(T query, int64_t minimum, int64_t headroom = 0) {
  if (minimum + headroom > INT_MAX) return std::nullopt;
  // float queries only: a double holds every int exactly.
  const T bumped =
      std::is_same_v<T, float> ? std::nextafter(query, std::numeric_limits<T>::infinity()) : query;
  const double optimal = std::ceil(static_cast<double>(bumped));
  return static_cast<int>(std::max<int64_t>(
      std::max<int64_t>(minimum, 1),
      optimal <= static_cast<double>(INT_MAX) ? static_cast<int64_t>(optimal) : INT_MAX));
}

}  // namespace ember::lapack
