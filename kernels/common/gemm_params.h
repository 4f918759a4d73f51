// The GEMM kernel interface behind the `mm` and `bmm` slots (every device uses the same one):
//
//   C[b] = alpha * A[b] @ B[b] + beta * C[b]      for b in [0, batch)
//
// with A[b] m x k, B[b] k x n, C[b] m x n, each given by a data pointer and element strides
// (batch, row, column), so transposed and sliced operands arrive without copies. beta == 0 means C
// is write-only: whatever it held (NaN included) is ignored, as in BLAS and PyTorch. Any strides
// are accepted; layouts BLAS can read directly (one unit stride, the other >= the extent) cost
// nothing extra, anything else is packed by the kernel. C must not overlap A or B.
#pragma once

#include <cstdint>

#include "ember/core/scalar.h"
#include "ember/core/scalar_type.h"

namespace ember {

struct GemmParams {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t a_bs = 0, a_rs = 0, a_cs = 0;
  const void* b = nullptr;
  int64_t b_bs = 0, b_rs = 0, b_cs = 0;
  void* c = nullptr;
  int64_t c_bs = 0, c_rs = 0, c_cs = 0;
  Scalar alpha = 1;
  Scalar beta = 0;
};

/// The function type stored in the `mm` and `bmm` kernel slots.
using GemmKernel = void (*)(ScalarType dtype, const GemmParams& p);

}  // namespace ember
