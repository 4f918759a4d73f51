// CPU kernels of the conv family's three slots (kernels/common/conv_params.h): oneDNN's
// convolution primitives for float32 and bfloat16 (conv_onednn.cpp), a direct loop for float64,
// for which oneDNN has no convolution, and as the fallback where oneDNN refuses a configuration
// (conv_direct.cpp).
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/conv_params.h"

namespace ember::kernels {

/// The `convolution` slot: float32, float64, bfloat16.
void cpu_convolution(ScalarType dtype, const ConvParams& p);
/// The `convolution_relu` slot: the same with max(y, 0) (oneDNN's post-op; the other paths run
/// one pass over y after the convolution).
void cpu_convolution_relu(ScalarType dtype, const ConvParams& p);
/// The `convolution_backward_data` slot.
void cpu_convolution_backward_data(ScalarType dtype, const ConvParams& p);
/// The `convolution_backward_weights` slot.
void cpu_convolution_backward_weights(ScalarType dtype, const ConvParams& p);

/// The direct loops (any of the three dtypes; accumulation in float64 for float64, else float32).
void conv_direct_forward(ScalarType dtype, const ConvParams& p);
void conv_direct_backward_data(ScalarType dtype, const ConvParams& p);
void conv_direct_backward_weights(ScalarType dtype, const ConvParams& p);

/// The same three through oneDNN; false when oneDNN has no primitive for dtype or the geometry
/// (the caller then runs the direct loop).
bool conv_onednn_forward(ScalarType dtype, const ConvParams& p);
bool conv_onednn_forward_relu(ScalarType dtype, const ConvParams& p);
bool conv_onednn_backward_data(ScalarType dtype, const ConvParams& p);
bool conv_onednn_backward_weights(ScalarType dtype, const ConvParams& p);

}  // namespace ember::kernels
