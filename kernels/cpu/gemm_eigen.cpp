// float64 GEMM through Eigen, for CPUs where OpenBLAS runs a fallback core (blas_core.cpp). Eigen
// is header-only and this file is compiled with -march=native, so its kernels use the AVX2 or
// AVX-512 FMA of the machine Ember was built on, whatever OpenBLAS's CPU table says. oneDNN,
// which takes float32 in that case, has no float64 GEMM.
//
// Measured with OPENBLAS_CORETYPE=Prescott on a 2-core AMD EPYC (AVX-512), dgemm 'N','N', one
// thread, GFLOP/s (benchmarks/bench_gemm, BM_Dgemm): see docs/architecture.md, "GEMM providers".
// GCC 12 flags its own AVX-512 intrinsics (the `__m512d __Y = __Y;` of _mm512_undefined_pd) as
// maybe-uninitialized once Eigen's packet transposes inline into this file: a false positive in
// the compiler's headers, silenced for this translation unit only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

#include "kernels/cpu/gemm_cpu.h"

namespace ember::cpu {

namespace {
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

// op(X) of a row-major matrix stored with leading dimension ld: rows x cols after the transpose.
template <class F>
void with_operand(bool trans, int64_t rows, int64_t cols, const double* x, int64_t ld, F&& f) {
  if (trans)
    f(ConstMap(x, cols, rows, Eigen::OuterStride<>(ld)).transpose());
  else
    f(ConstMap(x, rows, cols, Eigen::OuterStride<>(ld)));
}
}  // namespace

void eigen_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                 int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  Map C(c, m, n, Eigen::OuterStride<>(ldc));
  // beta == 0 overwrites C whatever it held (NaN included), as BLAS does.
  if (beta == 0.0)
    C.setZero();
  else if (beta != 1.0)
    C *= beta;
  with_operand(ta, m, k, a, lda, [&](const auto& A) {
    with_operand(tb, k, n, b, ldb, [&](const auto& B) { C.noalias() += alpha * A * B; });
  });
}

}  // namespace ember::cpu
