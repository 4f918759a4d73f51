// Fused CPU kernels for the row normalisations (layer_norm and rms_norm): statistics and the
// affine map in one pass over each row, and the whole backward in one more. They fill the
// `layer_norm` / `layer_norm_backward` kernel slots (norm_register.cpp); the operands are described
// in kernels/common/row_norm_params.h.
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/row_norm_params.h"

namespace ember::kernels {

/// The forward of RowNormParams for dtype float32, float64, float16 or bfloat16.
void cpu_row_norm_forward(ScalarType dtype, const RowNormParams& p);

/// The backward of RowNormBackwardParams for the same dtypes.
void cpu_row_norm_backward(ScalarType dtype, const RowNormBackwardParams& p);

}  // namespace ember::kernels
