// CPU kernels of the resample family's slots (operand layouts in
// kernels/common/resample_params.h); registered by resample_register.cpp.
#pragma once

#include "kernels/common/resample_params.h"

namespace ember::kernels {

/// F::interpolate forward, every mode: floating dtypes, computed in float (float64 for float64).
void cpu_upsample(ScalarType dtype, const UpsampleParams& p);
/// Its backward: the weights scatter-add into a float (float64) buffer per plane, rounded once.
void cpu_upsample_backward(ScalarType dtype, const UpsampleParams& p);

/// F::grid_sample forward (2-D and 3-D, every mode and padding).
void cpu_grid_sample(ScalarType dtype, const GridSampleParams& p);
/// Its backward: grad_input and/or grad_grid.
void cpu_grid_sample_backward(ScalarType dtype, const GridSampleParams& p);

}  // namespace ember::kernels
