// The kernel interface behind the `layer_norm` and `layer_norm_backward` slots: a fused row
// normalisation (LayerNorm, or RMSNorm with `rms`) over `rows` independent rows of `d` contiguous
// elements. Every pointer is in the memory of the device the kernel is registered for.
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"

namespace ember {

/// The dtype of the saved statistics: float64 for float64 input, float32 for the others.
constexpr ScalarType row_norm_stat_dtype(ScalarType t) { return t == kDouble ? kDouble : kFloat; }

/// y = xhat·w + b per row, xhat = (x - mean)·rstd (x·rstd with rms), rstd = 1/sqrt(var + eps),
/// var biased (the mean of squares with rms). x, y: rows×d contiguous, of the kernel's dtype; w,
/// b: d elements or null; mean, rstd: `rows` statistics of row_norm_stat_dtype (mean null with
/// rms), accumulated in that dtype too. rows may be 0 (nothing is written); callers pass rows = 0
/// when d = 0.
struct RowNormParams {
  int64_t rows = 0, d = 0;
  bool rms = false;
  double eps = 0;
  const void* x = nullptr;
  const void* w = nullptr;
  const void* b = nullptr;
  void* y = nullptr;
  void* mean = nullptr;
  void* rstd = nullptr;
};

/// The gradients of the forward above given grad (rows×d): dx (rows×d), dw = Σ_rows grad·xhat and
/// db = Σ_rows grad (d each); an output may be null when it is not needed. mean and rstd are the
/// forward's (mean null with rms); w is the forward's weight or null. With rows == 0, dw and db
/// are zeros.
struct RowNormBackwardParams {
  int64_t rows = 0, d = 0;
  bool rms = false;
  const void* grad = nullptr;
  const void* x = nullptr;
  const void* w = nullptr;
  const void* mean = nullptr;
  const void* rstd = nullptr;
  void* dx = nullptr;
  void* dw = nullptr;
  void* db = nullptr;
};

}  // namespace ember
