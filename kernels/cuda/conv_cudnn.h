// The CUDA kernels of the conv family's three slots (kernels/common/conv_params.h), through cuDNN
// (conv_cudnn.cpp); registered by conv_register.cpp when Ember is built with cuDNN.
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/conv_params.h"

namespace ember::cuda_detail {

/// The `convolution` slot: float32, float64, float16, bfloat16.
void cuda_convolution(ScalarType dtype, const ConvParams& p);
/// The `convolution_backward_data` slot.
void cuda_convolution_backward_data(ScalarType dtype, const ConvParams& p);
/// The `convolution_backward_weights` slot (the bias gradient too when p.b is set).
void cuda_convolution_backward_weights(ScalarType dtype, const ConvParams& p);

}  // namespace ember::cuda_detail
