// CPU row kernels for the `embedding`, `embedding_bag` and `embedding_backward` slots (the
// operand layouts are in kernels/common/embedding_params.h); registered by embedding_register.cpp.
#pragma once

#include "kernels/common/embedding_params.h"

namespace ember::kernels {

/// Row gather: a memcpy per row, any dtype.
void cpu_gather_rows(ScalarType dtype, const GatherRowsParams& p);

/// Bag sums and maxima, floating dtypes.
void cpu_bag_rows(ScalarType dtype, const BagSumRowsParams& p);

/// Row scatter(-add), floating dtypes. Rows of dst are split among threads, so repeated indices
/// never race and the sum order per row is k's order.
void cpu_scatter_add_rows(ScalarType dtype, const ScatterAddRowsParams& p);

}  // namespace ember::kernels
