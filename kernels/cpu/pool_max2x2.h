// The commonest max pool, 2x2 windows at stride 2 tiling dense NCHW planes exactly (every CNN's
// downsampling), forward with indices and backward; pool_kernels.cpp tries these first and runs
// its general loops when they do not apply. The planes are one flat run of rows: output row r
// (over all planes) reads input rows 2r and 2r + 1.
//
// float32 on AVX-512: each row takes 16 outputs per step (two loads per input row split into even
// and odd columns by one permute each, compares into masks, masked loads and stores for a row's
// last partial step); the backward writes the input gradient in one dense pass, with no zeroing
// first, when every index lies in its own window. One Xeon thread, BENCHMARKS.md §5(b) LeNet pools
// (benchmarks/ops/bench_vision.cpp): [64, 32, 24, 24] forward 590 -> 157 us, forward+backward
// 955 -> 326 us; [64, 64, 8, 8] 253 -> 81 us, 342 -> 162 us; the LeNet SGD step 15.1-15.4 ->
// 13.7-13.9 ms. float32 on AVX2 (no AVX-512): 8 outputs per step on rows of at least 8 outputs,
// the training path only (offsets, not indices). Other dtypes, CPUs and rows: a portable two-pass
// loop (horizontal pairs, then rows).
//
// Training that asks for no indices runs the rows max_pool_2x2 / max_pool_2x2_backward here: the
// forward writes one byte per output (the winning tap of its window) instead of an int64 index,
// and the backward writes each window from it. LeNet's step reads and writes those between its
// forward and backward, mostly from memory rather than cache: with the offsets the pools' share
// of a 1-thread step went from 10.3% to 7.8% (perf, Zen 5).
//
// Ties and NaNs as PyTorch's scan over (0,0), (0,1), (1,0), (1,1), taking a tap that is greater
// or NaN: the larger (or NaN) of each horizontal pair, then the bottom pair's when greater or
// NaN, so the top wins ties.
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/pool_params.h"

namespace ember::kernels {

/// Forward of max_pool when it is this pooling (no padding or dilation, even input sizes twice
/// the output's, dense planes in one run), with indices when p.indices is set (training) and
/// without (inference); returns false, doing nothing, otherwise. Instantiated for float, double,
/// BFloat16 and Half.
template <class T>
bool max_pool_2x2(const PoolParams& p);

/// max_pool's backward (pool_scatter, float32 only) when the sizes halve, the planes are one
/// dense run and every index lies in its own 2x2 window (checked). Returns false otherwise, with
/// the input gradient possibly part-written: the caller then computes all of it.
bool max_pool_2x2_scatter(const PoolIndexParams& p);

/// The max_pool_2x2 row (float32, float64, float16, bfloat16): values and window offsets
/// (PoolParams::offsets) for a geometry the caller has checked (pool::max_pool).
void cpu_max_pool_2x2(ScalarType dtype, const PoolParams& p);
/// The max_pool_2x2_backward row: reads the output gradient at p.output and the offsets, writes the
/// whole input gradient at p.input (dense, no zeroing first).
void cpu_max_pool_2x2_backward(ScalarType dtype, const PoolParams& p);

}  // namespace ember::kernels
