// Helpers the reduction ops share: dim lists, reduced shapes, and the calls into the reduction
// kernels (ReduceLoop) and the along-a-dim kernels (DimLoop). Private to the library.
#pragma once

#include <cstdint>

#include "kernels/common/reduce_loop.h"
#include "src/ops/op_common.h"

namespace ember {

/// Bit d set: dim d is reduced.
using DimMask = uint64_t;

/// Wraps `dims` against rank `ndim` (IndexError naming the op when out of range) and rejects
/// repeats ("dim 1 appears multiple times"). An empty list means every dim.
DimMask make_dim_mask(IntArrayRef dims, int64_t ndim, const char* op);
/// The mask of every dim of a rank-ndim tensor.
DimMask all_dims_mask(int64_t ndim);

/// The shape left after reducing the dims of mask: dropped, or kept as 1 with keepdim.
DimVector reduced_shape(IntArrayRef sizes, DimMask mask, bool keepdim);
/// How many input elements fold into each output element.
int64_t reduced_numel(IntArrayRef sizes, DimMask mask);

/// For ops with no identity (max, amax, argmax, median): an Error when an empty tensor is reduced
/// over all dims (`all_dims`), an IndexError when a reduced dim has size 0.
void check_nonempty_reduction(const Tensor& self, DimMask mask, bool all_dims, const char* op);

/// Runs reduction kernel `op` over the dims of `mask` of self into out0 (and out1: indices or
/// mean), which must be contiguous with shape reduced_shape(self.sizes(), mask, keepdim). out0
/// may be undefined when out1 is given (argmax).
void run_reduction(OpId op, const Tensor& self, DimMask mask, bool keepdim, const Tensor& out0,
                   const Tensor* out1 = nullptr, const OpScalars& scalars = {});

/// Allocates the output (dtype out_dtype) and runs reduction kernel `op`.
Tensor reduce_into_new(OpId op, const Tensor& self, DimMask mask, bool keepdim,
                       ScalarType out_dtype, const OpScalars& scalars = {});

/// The [outer, size, inner] view of contiguous tensor `c` along wrapped dim `dim`.
DimLoop make_dim_loop(const Tensor& c, int64_t dim);

/// Runs along-a-dim kernel `op` (checks the dtype even when there is nothing to do).
void run_dim_kernel(OpId op, Device device, const DimLoop& loop);

}  // namespace ember
