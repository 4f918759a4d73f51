// Functional convolutions (LibTorch's torch/nn/functional/conv.h):
//   namespace F = ember::nn::functional;
//   Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1));
//   Tensor s = F::conv1d(x, w, F::Conv1dFuncOptions().padding(ember::kSame));
//   Tensor u = F::conv_transpose2d(y, wt, F::ConvTranspose2dFuncOptions().stride(2));
// Shapes, defaults and errors are those of ember::conv2d etc. (ember/ops/nn_conv.h).
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/conv.h"

namespace ember::nn::functional {

/// 1-D convolution: input [N, C, L] or [C, L], weight [out, C/groups, k].
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight,
                        const Conv1dFuncOptions& options = {});
/// 2-D convolution: input [N, C, H, W] or [C, H, W], weight [out, C/groups, kH, kW].
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight,
                        const Conv2dFuncOptions& options = {});
/// 3-D convolution: input [N, C, D, H, W] or [C, D, H, W], weight [out, C/groups, kD, kH, kW].
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight,
                        const Conv3dFuncOptions& options = {});

/// Transposed 1-D convolution: input [N, C, L] or [C, L], weight [C, out/groups, k].
EMBER_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose1dFuncOptions& options = {});
/// Transposed 2-D convolution: weight [C, out/groups, kH, kW].
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose2dFuncOptions& options = {});
/// Transposed 3-D convolution: weight [C, out/groups, kD, kH, kW].
EMBER_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose3dFuncOptions& options = {});

}  // namespace ember::nn::functional
