// Plane geometry shared by the CPU pool loops (pool_kernels.cpp, pool_fractional.cpp): flat
// positions, element offsets and plane starts of a PoolGeometry, the parallel grain, and the
// float-dtype visit every pool kernel dispatches through.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ember/core/half.h"
#include "kernels/common/pool_params.h"
#include "kernels/common/visit.h"
#include "src/core/parallel.h"

namespace ember::kernels::pool_loops {

// Splits a flat output position into (d, h, w).
struct PoolPos {
  int64_t d, h, w;
};
inline PoolPos split_pos(const PoolGeometry& g, int64_t pos) {
  return {pos / (g.size[1] * g.size[2]), (pos / g.size[2]) % g.size[1], pos % g.size[2]};
}
inline int64_t offset_of(const PoolGeometry& g, int64_t d, int64_t h, int64_t w) {
  return d * g.stride[0] + h * g.stride[1] + w * g.stride[2];
}
// Whether a plane's spatial elements are contiguous in row-major order (flat position ==
// offset).
inline bool plane_is_dense(const PoolGeometry& g) {
  return (g.size[2] <= 1 || g.stride[2] == 1) && (g.size[1] <= 1 || g.stride[1] == g.size[2]) &&
         (g.size[0] <= 1 || g.stride[0] == g.size[1] * g.size[2]);
}

// Whether all (n, c) planes are dense and follow one another with no gaps, so the whole operand
// is one flat run of rows.
inline bool planes_are_one_run(const PoolGeometry& g, int64_t batch, int64_t channels) {
  return plane_is_dense(g) && (channels <= 1 || g.stride_c == g.volume()) &&
         (batch <= 1 || g.stride_n == channels * g.volume());
}

inline int64_t plane_offset(const PoolGeometry& g, int64_t plane, int64_t channels) {
  return (plane / channels) * g.stride_n + (plane % channels) * g.stride_c;
}

// A grain in output elements that gives each thread at least ~32k taps of work.
inline int64_t pool_grain(int64_t taps_per_output) {
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, taps_per_output));
}

// Runs Impl<T>::run(p) for a floating `dtype` (the pool rows take no other).
template <template <class> class Impl, class P>
void visit_pool_float(ScalarType dtype, const P& p) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) Impl<T>::run(p);
  });
}

}  // namespace ember::kernels::pool_loops
