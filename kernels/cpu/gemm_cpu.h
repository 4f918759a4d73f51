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

/// OpenBLAS's kernel set in this process ("Cooperlake", "Prescott", ...), and whether it is a
/// fallback that leaves this CPU's AVX2/AVX-512 unused (blas_core.cpp); then gemm_blas.cpp sends
/// float32 products to oneDNN and float64 ones to Eigen. Exported for tests and benchmarks.
EMBER_API const char* openblas_core();
EMBER_API bool openblas_core_is_fallback();

/// C = alpha·op(A)·op(B) + beta·C in float64 through Eigen (row-major, BLAS's conventions).
/// Exported for tests/ops/linalg_test.cpp.
EMBER_API void eigen_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
                           const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                           double* c, int64_t ldc);

/// Whether a float32 product that goes to oneDNN, with B transposed or not (tb) and n columns,
/// runs as one single-thread oneDNN product per thread on its own block of C's columns instead of
/// oneDNN's own split over `threads` (gemm_blas.cpp says where that measured faster). Exported for
/// tests/ops/gemm_provider_test.cpp.
EMBER_API bool sgemm_splits_columns(bool tb, int64_t n, int threads);

/// Whether a product that goes to OpenBLAS (which runs on its caller's thread alone) runs as one
/// OpenBLAS call per thread of `threads` on its own block of C's rows or columns: at least 16 of
/// them and 256k multiply-adds per thread. Exported for tests/ops/gemm_provider_test.cpp.
EMBER_API bool openblas_gemm_splits(int64_t m, int64_t n, int64_t k, int threads);

/// Keeps OpenMP (which oneDNN uses) at ember::get_num_threads() for calls from this thread.
void sync_omp_threads();

}  // namespace ember::cpu
