// CPU kernels of the pool family (kernels/common/pool_params.h describes the operands): plain
// strided loops over every layout, for float32, float64, float16 and bfloat16 (16-bit floats
// accumulate in float). Registered by pool_register.cpp.
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/pool_params.h"

namespace ember::kernels {

/// max_pool: the max of each window and its flat spatial index (the first maximum; a NaN wins).
void cpu_max_pool(ScalarType dtype, const PoolParams& p);
/// avg_pool: the mean of each window (count_include_pad / divisor_override as PyTorch).
void cpu_avg_pool(ScalarType dtype, const PoolParams& p);
/// avg_pool_backward: spreads each output gradient evenly over its window's taps.
void cpu_avg_pool_backward(ScalarType dtype, const PoolParams& p);
/// pool_scatter / pool_gather along int64 indices.
void cpu_pool_scatter(ScalarType dtype, const PoolIndexParams& p);
void cpu_pool_gather(ScalarType dtype, const PoolIndexParams& p);
/// fractional_max_pool, 2-d and 3-d.
void cpu_fractional_max_pool(ScalarType dtype, const FractionalPoolParams& p);

}  // namespace ember::kernels
