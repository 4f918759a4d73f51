// Convolution as ATen's free functions (LibTorch's torch::conv2d etc.):
//   Tensor y = ember::conv2d(x, w, b, /*stride=*/1, /*padding=*/1);   // x [N, C, H, W]
//   Tensor z = ember::conv2d(x, w, {}, 1, "same");
//   Tensor u = ember::conv_transpose2d(y, wt, {}, /*stride=*/2, /*padding=*/1,
//   /*output_padding=*/1);
// Inputs may be batched ([N, C, *]) or unbatched ([C, *]); channels-last 4-D/5-D inputs give
// channels-last outputs. Every function is differentiable in input, weight and bias.
#pragma once

#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

/// The general convolution every other function here calls: weight [out, in/groups, k...]
/// (transposed: [in, out/groups, k...]), bias [out] or undefined; stride, padding, dilation and
/// output_padding have one value per spatial dim (or one for all).
EMBER_API Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                             bool transposed, IntArrayRef output_padding, int64_t groups);

/// relu(convolution(input, weight, bias, stride, padding, dilation, false, 0, groups)), for the
/// fused modules (nn::intrinsic::ConvReLU1d/2d/3d). One kernel pass (the `convolution_relu` row:
/// oneDNN's ReLU post-op on CPU) when no gradient is recorded and the backend has the row;
/// otherwise the two differentiable ops.
EMBER_API Tensor convolution_relu(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                  int64_t groups);

/// 1-D convolution: input [N, C, L] or [C, L], weight [out, C/groups, k].
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                        int64_t groups = 1);
/// conv1d with one padding for every dim; a literal `0` would otherwise be ambiguous between
/// the IntArrayRef and the string padding.
inline Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     IntArrayRef stride, int64_t padding, IntArrayRef dilation = 1,
                     int64_t groups = 1) {
  return conv1d(input, weight, bias, stride, IntArrayRef(padding), dilation, groups);
}
/// conv1d with padding "same" (output as long as the input; stride 1 only) or "valid" (none).
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, std::string_view padding, IntArrayRef dilation = 1,
                        int64_t groups = 1);
/// 2-D convolution: input [N, C, H, W] or [C, H, W], weight [out, C/groups, kH, kW].
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                        int64_t groups = 1);
/// conv2d with one padding for every dim; a literal `0` would otherwise be ambiguous between
/// the IntArrayRef and the string padding.
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     IntArrayRef stride, int64_t padding, IntArrayRef dilation = 1,
                     int64_t groups = 1) {
  return conv2d(input, weight, bias, stride, IntArrayRef(padding), dilation, groups);
}
/// conv2d with padding "same" or "valid".
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, std::string_view padding, IntArrayRef dilation = 1,
                        int64_t groups = 1);
/// 3-D convolution: input [N, C, D, H, W] or [C, D, H, W], weight [out, C/groups, kD, kH, kW].
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                        int64_t groups = 1);
/// conv3d with one padding for every dim; a literal `0` would otherwise be ambiguous between
/// the IntArrayRef and the string padding.
inline Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     IntArrayRef stride, int64_t padding, IntArrayRef dilation = 1,
                     int64_t groups = 1) {
  return conv3d(input, weight, bias, stride, IntArrayRef(padding), dilation, groups);
}
/// conv3d with padding "same" or "valid".
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, std::string_view padding, IntArrayRef dilation = 1,
                        int64_t groups = 1);

/// Transposed 1-D convolution (the gradient of conv1d w.r.t. its input): input [N, C, L] or
/// [C, L], weight [C, out/groups, k]; L_out = (L-1)·stride - 2·padding + dilation·(k-1) +
/// output_padding + 1.
EMBER_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                                  const Tensor& bias = {}, IntArrayRef stride = 1,
                                  IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                                  int64_t groups = 1, IntArrayRef dilation = 1);
/// Transposed 2-D convolution: weight [C, out/groups, kH, kW].
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                  const Tensor& bias = {}, IntArrayRef stride = 1,
                                  IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                                  int64_t groups = 1, IntArrayRef dilation = 1);
/// Transposed 3-D convolution: weight [C, out/groups, kD, kH, kW].
EMBER_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                                  const Tensor& bias = {}, IntArrayRef stride = 1,
                                  IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                                  int64_t groups = 1, IntArrayRef dilation = 1);

}  // namespace ember
