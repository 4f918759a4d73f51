// The kernel interface of the pool family (the rows of include/ember/ops/op_table_pool.h): every
// operand is (N, C, D, H, W) with element strides, a 1-d or 2-d pooling having leading spatial
// dims of size 1, so one description serves all ranks and any layout (channels-last included).
// A max index is the flat spatial position of the element in its (n, c) plane, (d·H + h)·W + w,
// as PyTorch stores it, whatever the memory layout. Pointers are in the kernel device's memory.
#pragma once

#include <cstdint>

namespace ember {

constexpr int kPoolMaxDims = 3;

/// Sizes and element strides of one (N, C, D, H, W) operand.
struct PoolGeometry {
  int64_t size[kPoolMaxDims] = {1, 1, 1};    // D, H, W
  int64_t stride_n = 0, stride_c = 0;        // batch and channel strides
  int64_t stride[kPoolMaxDims] = {0, 0, 0};  // D, H, W strides
  /// Elements of one (n, c) plane's spatial volume.
  int64_t volume() const { return size[0] * size[1] * size[2]; }
};

/// Windows of max/avg pooling. Along spatial dim i, output position o reads the taps
/// start + t·dilation[i], t < kernel[i], with start = o·stride[i] - pad[i]; taps outside the input
/// are skipped. With `adaptive`, the window is [floor(o·in/out), ceil((o+1)·in/out)) and kernel,
/// stride, pad and dilation are unused.
///
/// Forward (max_pool, avg_pool): reads `input`, writes `output` (and `indices` for max_pool,
/// laid out with the output's strides). Backward (avg_pool_backward): reads the output gradient at
/// `output` and writes the whole input gradient at `input`.
struct PoolParams {
  int64_t batch = 0, channels = 0;
  PoolGeometry in, out;
  int64_t kernel[kPoolMaxDims] = {1, 1, 1};
  int64_t stride[kPoolMaxDims] = {1, 1, 1};
  int64_t pad[kPoolMaxDims] = {0, 0, 0};
  int64_t dilation[kPoolMaxDims] = {1, 1, 1};
  bool adaptive = false;
  /// Average pooling: whether padded taps count in the divisor (PyTorch's count_include_pad).
  bool count_include_pad = true;
  /// Average pooling: a fixed divisor, 0 when none.
  int64_t divisor_override = 0;
  void* input = nullptr;
  void* output = nullptr;
  int64_t* indices = nullptr;
  /// max_pool_2x2 and its backward (2x2 windows at stride 2 over dense NCHW planes of twice the
  /// output's height and width): each window's winning tap as one byte, 0 top-left, 1 top-right,
  /// 2 bottom-left, 3 bottom-right, laid out as the (dense) output. What a training step keeps
  /// for the backward when nobody asked for the indices: 1 byte per output instead of 8.
  uint8_t* offsets = nullptr;
};

/// Moves values between a pooled operand `small` (values and int64 indices, both with small's
/// strides) and the operand the indices point into, `large`, plane by plane:
///   pool_scatter: large[idx] += small (large is zeroed first); with `assign`, large[idx] = small
///                 (max_unpool's forward);
///   pool_gather:  small = large[idx].
/// An index outside [0, large.volume()) is not followed: the first one met is stored in
/// *invalid_index (host memory; left alone when all are valid).
struct PoolIndexParams {
  int64_t batch = 0, channels = 0;
  PoolGeometry small, large;
  const int64_t* indices = nullptr;
  void* small_data = nullptr;
  void* large_data = nullptr;
  bool assign = false;
  int64_t* invalid_index = nullptr;
  bool* has_invalid_index = nullptr;  // set to true when one is found (any value can be invalid)
};

/// Fractional max pooling (Graham, 2014): along dim i the windows of `kernel[i]` taps start at
/// PyTorch's pseudo-random sequence drawn from samples[n][c][i] in [0, 1) (`samples`: batch ×
/// channels × nd elements, contiguous, of the input's dtype; for 2-d, sample 0 drives the width
/// and sample 1 the height, as PyTorch orders them). Writes output and int64 indices with the
/// output's strides. `nd` is 2 or 3; a 2-d pooling uses dims H and W.
struct FractionalPoolParams {
  int64_t batch = 0, channels = 0;
  int nd = 2;
  PoolGeometry in, out;
  int64_t kernel[kPoolMaxDims] = {1, 1, 1};
  const void* samples = nullptr;
  const void* input = nullptr;
  void* output = nullptr;
  int64_t* indices = nullptr;
};

}  // namespace ember
