// The kernel interface behind the conv family's slots (`convolution`, `convolution_backward_data`,
// `convolution_backward_weights`): one N-d (1, 2 or 3 spatial dims) grouped, strided, dilated and
// padded convolution in PyTorch's geometry. Transposed convolution is not a separate kernel: its
// forward is this convolution's backward data, its backward data this forward, and its weight
// gradient this weight gradient with input and output swapped (src/ops/nn_conv.cpp does the
// mapping), so a backend implements three kernels for both.
#pragma once

#include <cstdint>

namespace ember {

/// The most spatial dims a convolution has (Conv3d).
constexpr int kConvMaxSpatial = 3;

/// Geometry and operands of one convolution y = conv(x, w) + b:
///   x [n, ic, in...], w [oc, ic/groups, k...] (contiguous), b [oc] or null, y [n, oc, out...]
///   out[i] = (in[i] + pad[i] + pad_r[i] - dilation[i]·(k[i]-1) - 1) / stride[i] + 1
/// where pad is the left (top, front) padding and pad_r, implied by out, the right one (it may
/// differ from pad: padding='same' with an even kernel, or a transposed convolution's
/// output_padding). x and y are contiguous in NC... order, or in N...C order (channels-last)
/// when channels_last is set; all pointers are device memory of the kernel's dtype.
///
/// Which pointers each slot reads and writes:
///   convolution:                  reads x, w, b (may be null); writes y
///   convolution_backward_data:    reads y (the gradient of y), w; writes x (the gradient of x)
///   convolution_backward_weights: reads x, y (the gradient of y); writes w (the gradient of w)
///                                 and, when b is not null, b (the gradient of b: Σ over n, out)
/// Every size is > 0 (callers handle empty batches and channels themselves).
struct ConvParams {
  int spatial = 2;  // 1, 2 or 3
  int64_t n = 0, ic = 0, oc = 0, groups = 1;
  int64_t in[kConvMaxSpatial] = {1, 1, 1};
  int64_t out[kConvMaxSpatial] = {1, 1, 1};
  int64_t k[kConvMaxSpatial] = {1, 1, 1};
  int64_t stride[kConvMaxSpatial] = {1, 1, 1};
  int64_t pad[kConvMaxSpatial] = {0, 0, 0};
  int64_t dilation[kConvMaxSpatial] = {1, 1, 1};
  bool channels_last = false;
  const void* x = nullptr;
  const void* w = nullptr;
  const void* b = nullptr;
  void* y = nullptr;
};

/// The right padding of spatial dim i that ConvParams's output size implies (may be negative
/// when the last stride step does not reach the input's end).
inline int64_t conv_pad_right(const ConvParams& p, int i) {
  return (p.out[i] - 1) * p.stride[i] + p.dilation[i] * (p.k[i] - 1) + 1 - p.in[i] - p.pad[i];
}

}  // namespace ember
