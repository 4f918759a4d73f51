// CPU loops for gather/scatter-style indexing (index, index_put_, index_select, gather, scatter,
// index_add, take, masked_fill, masked_select, nonzero). Compute only: the ops in
// src/ops/indexing.cpp check the arguments (indices are in range before a kernel runs) and
// restride the operands so that one coalesced ElementwiseLoop (src/ops/op_common.h) walks all of
// them.
//
// Operand layouts (operand 0 first; strides in bytes):
//   gather:      (out, src, index int64)    out[i] = src[i][offset(index[i])]
//   put:         (dst, values, index int64) dst[i][offset(index[i])] = values[i]  (+= accumulating)
//   masked_fill: (self, mask bool)          self[i] = value where mask[i]
// with offset(v) = (v < 0 ? v + size : v) * stride in elements, stride = L.scalars.i[0] and
// size = L.scalars.i[1] (size 0 when indices are never negative).
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"
#include "kernels/common/elementwise_loop.h"

namespace ember::kernels {

/// Gathers one element per output position; L.out_dtype is the element dtype.
void cpu_index_gather(const ElementwiseLoop& L);
/// Scatters values (already of the destination dtype, L.out_dtype). Accumulating runs serially so
/// duplicate offsets add up deterministically; plain writes run in parallel (of duplicates, one
/// value lands, as in PyTorch).
void cpu_index_put(const ElementwiseLoop& L, bool accumulate);
/// Writes the element at `value` (L.out_dtype bytes) wherever the mask is true.
void cpu_masked_fill(const ElementwiseLoop& L, const void* value);

constexpr int64_t kMaxNonzeroDims = 64;
/// Number of elements of a contiguous buffer that are nonzero (NaN counts, -0 does not).
int64_t cpu_count_nonzero(const void* data, ScalarType dtype, int64_t numel);
/// Writes the row-major coordinates of every nonzero element of a contiguous buffer of `sizes`
/// into out ([count, ndim], row-major int64); ndim <= kMaxNonzeroDims. `out` must have room for
/// count + 1 rows: the loop is branch-free and writes one row past the last kept one.
void cpu_nonzero_coords(const void* data, ScalarType dtype, const int64_t* sizes, int64_t ndim,
                        int64_t* out);
/// Writes, for every true element of a contiguous bool mask of `sizes` (row-major order), the
/// element offset sum(coord[d] * strides[d]) into out; ndim <= kMaxNonzeroDims. `out` must have
/// room for count + 1 entries, as for cpu_nonzero_coords.
void cpu_mask_offsets(const bool* mask, const int64_t* sizes, const int64_t* strides, int64_t ndim,
                      int64_t* out);
/// Smallest and largest value of an int64 buffer (n > 0).
void cpu_min_max(const int64_t* data, int64_t n, int64_t* min, int64_t* max);

}  // namespace ember::kernels
