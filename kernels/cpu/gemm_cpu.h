// The CPU GEMM implementations behind the `mm`/`bmm` slots, one per dtype family; blas_kernels.cpp
// picks one by dtype. All take the shared GemmParams (kernels/common/gemm_params.h).
#pragma once

#include "ember/core/macros.h"
#include "kernels/common/gemm_params.h"

namespace ember::cpu {

/// float32 and float64 through the fastest measured BLAS (gemm_blas.cpp).
void gemm_float(const GemmParams& p);
void gemm_double(const GemmParams& p);

/// bfloat16 and float16 (gemm_onednn.cpp): oneDNN's matmul primitive where this CPU runs it in
/// that dtype, otherwise widened to float32 (sgemm, float accumulation) and rounded once.
void gemm_reduced_float(ScalarType dtype, const GemmParams& p);

/// Runs p through a cached oneDNN matmul primitive in `dtype` (float32, bfloat16 or float16).
/// Returns false, having written nothing, when oneDNN cannot run that dtype/layout on this CPU.
/// Exported (EMBER_API) for tests/ops/linalg_test.cpp.
EMBER_API bool onednn_matmul(ScalarType dtype, const GemmParams& p);

/// uint8 ... int64: a plain loop with wrap-around (two's complement) arithmetic, as PyTorch.
void gemm_integer(ScalarType dtype, const GemmParams& p);

/// Keeps OpenMP (which oneDNN uses) at ember::get_num_threads() for calls from this thread.
void sync_omp_threads();

}  // namespace ember::cpu
