// The kernel interface behind the resample family's slots: `upsample` / `upsample_backward`
// (every mode of F::interpolate) and `grid_sample` / `grid_sample_backward`. Every pointer is in
// the memory of the device the kernel is registered for; strides are in elements, in the order
// (N, C, spatial dims...). Callers have checked shapes, modes and dtypes.
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"

namespace ember {

/// The most spatial dims any resample op has (trilinear, 3-D grid_sample).
constexpr int kResampleMaxDims = 3;

/// One interpolation of F::interpolate over `dims` spatial dims (1..3) of a [N, C, *in] tensor to
/// [N, C, *out], separable as every mode is: an output element is Σ over the taps of each dim of
/// the product of the taps' weights times the input element they name.
///   forward (`upsample`):            src = input  [N, C, *in_size],  dst = output [N, C,
///   *out_size] backward (`upsample_backward`):  src = grad of the output, dst = grad of the input
///   (the
///                                    kernel overwrites dst; weights scatter-add, so downsampling
///                                    sums every contribution).
/// Stride arrays describe the in-sized and out-sized tensors whichever direction runs.
struct UpsampleParams {
  enum class Mode {
    Nearest,       ///< floor(dst·scale) (PyTorch's legacy "nearest")
    NearestExact,  ///< floor((dst + 0.5)·scale)
    Linear,        ///< linear / bilinear / trilinear
    Cubic,         ///< bicubic, A = -0.75 (antialias: Keys' A = -0.5 filter)
    Area           ///< adaptive average pooling
  };
  Mode mode = Mode::Nearest;
  int dims = 0;
  int64_t batch = 0, channels = 0;
  int64_t in_size[kResampleMaxDims] = {1, 1, 1};
  int64_t out_size[kResampleMaxDims] = {1, 1, 1};
  /// The scale factor given by the user per dim (output / input), or 0 when the size alone
  /// defines the mapping (PyTorch's `scales` arguments: the kernels use 1/scale, not in/out).
  double scales[kResampleMaxDims] = {0, 0, 0};
  bool align_corners = false;
  bool antialias = false;  ///< Linear and Cubic only: a widened, normalised filter when shrinking
  int64_t in_stride[2 + kResampleMaxDims] = {};
  int64_t out_stride[2 + kResampleMaxDims] = {};
  const void* src = nullptr;
  void* dst = nullptr;
};

/// F::grid_sample over `dims` (2 or 3) spatial dims: input [N, C, *in_size], grid [N, *out_size,
/// dims] (contiguous; its last dim holds x, y[, z], x indexing the input's last dim), output
/// [N, C, *out_size].
struct GridSampleParams {
  enum class Mode { Bilinear, Nearest, Bicubic };
  enum class Padding { Zeros, Border, Reflection };
  Mode mode = Mode::Bilinear;
  Padding padding = Padding::Zeros;
  bool align_corners = false;
  int dims = 2;
  int64_t batch = 0, channels = 0;
  int64_t in_size[kResampleMaxDims] = {1, 1, 1};
  int64_t out_size[kResampleMaxDims] = {1, 1, 1};
  int64_t in_stride[2 + kResampleMaxDims] = {};   ///< of input (and grad_input)
  int64_t out_stride[2 + kResampleMaxDims] = {};  ///< of output (and grad_output)
  const void* input = nullptr;
  const void* grid = nullptr;
  /// forward: written. backward: unused.
  void* output = nullptr;
  /// backward only: read.
  const void* grad_output = nullptr;
  /// backward only, each may be null (not needed): overwritten with the gradients (grad_grid is
  /// contiguous like grid).
  void* grad_input = nullptr;
  void* grad_grid = nullptr;
};

}  // namespace ember
