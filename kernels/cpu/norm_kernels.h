// Fused CPU kernels for the row normalisations (layer_norm and rms_norm): statistics and the
// affine map in one pass over each row, and the whole backward in one more. Used by
// src/nn/functional/normalization.cpp; raw pointers in, results out.
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"

namespace ember::kernels {

/// What a row normalisation computes: LayerNorm (x - mean)·rstd or RMSNorm x·rstd.
struct RowNormShape {
  int64_t rows = 0;  // independent rows
  int64_t d = 0;     // elements per row (the normalised dims, flattened)
  bool rms = false;  // RMSNorm: no mean subtracted (mean is not written)
};

/// The dtype of the saved statistics: float64 for float64 input, float32 for the others.
constexpr ScalarType row_norm_stat_dtype(ScalarType t) { return t == kDouble ? kDouble : kFloat; }

/// y = xhat·w + b per row, xhat = (x - mean)·rstd (or x·rstd with rms), rstd = 1/sqrt(var + eps)
/// (var biased; mean of squares with rms). x, y: rows×d contiguous of `dtype` (float32, float64,
/// float16, bfloat16); w, b: d elements of `dtype` or null; mean, rstd: `rows` statistics of
/// row_norm_stat_dtype(dtype) (mean null with rms).
void cpu_row_norm_forward(ScalarType dtype, const RowNormShape& s, const void* x, const void* w,
                          const void* b, double eps, void* y, void* mean, void* rstd);

/// The gradients of cpu_row_norm_forward given `grad` (rows×d): dx (rows×d), dw and db (d each,
/// summed over rows); any output may be null when not needed. dw/db need w to have been given.
void cpu_row_norm_backward(ScalarType dtype, const RowNormShape& s, const void* grad, const void* x,
                           const void* w, const void* mean, const void* rstd, void* dx, void* dw,
                           void* db);

}  // namespace ember::kernels
