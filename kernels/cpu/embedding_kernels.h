// CPU row kernels for embedding lookups and bags (src/nn/functional/embedding.cpp): gathers and
// sums of table rows, and the scatter-add of their gradients. Raw pointers in, results out; every
// index has been range-checked by the caller.
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"

namespace ember::kernels {

/// out[k, :] = table[idx[k], :] for k < n; rows of `d` contiguous elements of `dtype` (any
/// floating dtype).
void cpu_gather_rows(ScalarType dtype, const void* table, int64_t d, const int64_t* idx, int64_t n,
                     void* out);

/// out[b, :] = (Σ_{k in [begin[b], end[b])} w[k]·table[idx[k], :]) / div[b] for b < bags, summed
/// in float32 (float64 for float64). w (per entry, of `dtype`) and div (per bag) may be null
/// (all ones). An empty bag gives zeros.
void cpu_bag_sum_rows(ScalarType dtype, const void* table, int64_t d, const int64_t* idx,
                      const int64_t* begin, const int64_t* end, int64_t bags, const void* w,
                      const double* div, void* out);

/// dst[idx[k], :] += coef[k]·src[src_row[k], :] for k < n (src_row null: k; coef null: 1), dst
/// and src of `dtype` float32 or float64. Rows of dst are split among threads, so repeated
/// indices never race and the sum order per row is k's order.
void cpu_scatter_add_rows(ScalarType dtype, void* dst, int64_t dst_rows, int64_t d, const void* src,
                          const int64_t* idx, const int64_t* src_row, const double* coef,
                          int64_t n);

}  // namespace ember::kernels
