// The checked geometry of one convolution and the differentiable core every conv function runs
// (src/ops/nn_conv_core.cpp), shared with the backward formulas
// (src/autograd/derivatives/conv.cpp).
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::conv_detail {

/// A validated convolution geometry. pad_l/pad_r are the exact left and right paddings of the
/// non-transposed view: out = (in + pad_l + pad_r - dilation·(k-1) - 1) / stride + 1 holds without
/// rounding (pad_r may be negative when the last window stops before the input's end). A
/// transposed convolution is the same geometry with input and output exchanged.
struct ConvGeometry {
  int spatial = 2;
  int64_t stride[3] = {1, 1, 1};
  int64_t pad_l[3] = {0, 0, 0};
  int64_t pad_r[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  int64_t groups = 1;
  bool transposed = false;
};

/// The convolution of a batched input ([N, C, *spatial]) with the checked geometry, recorded for
/// autograd (ConvolutionBackward0). Shapes and dtypes must already be checked.
Tensor conv_core(const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const ConvGeometry& g);

/// relu(conv_core(...)) of a non-transposed geometry through the `convolution_relu` kernel row
/// in one pass. Records nothing: the caller checks that no gradient is needed and that the
/// device has the row.
Tensor conv_relu_core(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const ConvGeometry& g);

/// The weight gradient of the non-transposed view written with differentiable convolutions (for
/// double backward): x the view's input [N, IC, in], gy the gradient of its output [N, OC, out],
/// result [OC, IC/groups, k] with k given.
Tensor conv_weight_grad_composite(const Tensor& x, const Tensor& gy, const ConvGeometry& g,
                                  IntArrayRef kernel);

}  // namespace ember::conv_detail
