// CPU kernels of the pad family's slots (operand layouts in kernels/common/pad_params.h);
// registered by pad_register.cpp.
#pragma once

#include "kernels/common/pad_params.h"

namespace ember::kernels {

/// Index-map padding: a gather that moves elements by size (any dtype), with a memcpy for the
/// run of the innermost dim that the map copies unchanged.
void cpu_pad_nd(ScalarType dtype, const PadIndexParams& p);

/// Its scatter-add, float32/float64 (callers widen float16/bfloat16 first). Slabs of `outer`
/// are independent, so threads split them and never race.
void cpu_pad_nd_backward(ScalarType dtype, const PadIndexParams& p);

/// Image to sliding-block columns, floating dtypes.
void cpu_im2col(ScalarType dtype, const Im2ColParams& p);

/// Columns summed back into the image, float32/float64 (callers widen float16/bfloat16). Each
/// (n, c) plane is one task.
void cpu_col2im(ScalarType dtype, const Im2ColParams& p);

}  // namespace ember::kernels
