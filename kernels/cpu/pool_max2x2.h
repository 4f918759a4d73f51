// float32 AVX-512 kernels for the commonest max pool, 2x2 windows at stride 2 tiling dense NCHW
// planes exactly (every CNN's downsampling), forward with indices and backward. The planes are
// one flat run of rows: output row r (over all planes) reads input rows 2r and 2r + 1.
//
// The portable loops of pool_kernels.cpp do the same work in two passes with stride-2 loads the
// compiler turns into gathers, and pay their setup per short row (LeNet's second pool has rows of
// 4 outputs). Here each row takes 16 outputs per step: two loads per input row split into even
// and odd columns by one permute each, compares into masks, and masked loads and stores for a
// row's last partial step. One Xeon thread, BENCHMARKS.md §5(b) LeNet pools (bench_vision):
// see the commit that added this file.
//
// Ties and NaNs as PyTorch's scan over (0,0), (0,1), (1,0), (1,1), taking a tap that is greater
// or NaN: the larger (or NaN) of each horizontal pair, then the bottom pair's when greater or
// NaN, so the top wins ties.
#pragma once

#include <cstdint>

namespace ember::kernels {

/// Whether this build has the kernels below (AVX-512F); without it both return false.
bool max_pool_2x2_float_available();

/// Forward over `rows` output rows of `ow` outputs (`oh` rows per plane; input rows of 2 * ow):
/// y and idx (the flat index within the plane, as PyTorch) from x.
bool max_pool_2x2_float(const float* x, float* y, int64_t* idx, int64_t rows, int64_t oh,
                        int64_t ow);

/// Backward: gx (the whole input gradient, dense, 2 * rows input rows of 2 * ow) gets gy at each
/// output's index and 0 elsewhere. Returns false, with gx partly written, when an index lies
/// outside its own 2x2 window (indices from another pooling); the caller then recomputes gx.
bool max_pool_2x2_float_backward(const float* gy, const int64_t* idx, float* gx, int64_t rows,
                                 int64_t oh, int64_t ow);

}  // namespace ember::kernels
