// The kernel interface behind the LAPACK slots of ember::linalg (lu_factor, lu_solve, cholesky,
// geqrf, orgqr, svd, eigh; every device uses the same one). One slot per LAPACK routine: the CPU
// registers OpenBLAS's LAPACK, CUDA cuSOLVER's dense routines.
//
// Operands are batches of column-major matrices in the kernel's device memory (host memory on the
// CPU), as LAPACK reads and writes them: matrix b of a LapackMatrices starts `b * batch_stride`
// elements after `data`, element (i, j) sits at `i + j * ld`. Vectors (pivots, tau, S, W) are
// packed: entry b's starts at `b * length`. The ops in src/ops/linalg_*.cpp lay Ember's row-major
// tensors out this way with ordinary tensor ops (a row-major matrix read as column-major is its
// transpose), so a kernel moves nothing and sees one layout.
//
// Each kernel runs the routine once per batch entry, owns its workspace (sized by the routine's
// own query), and reports LAPACK's info for entry b in `info[b]`: HOST memory, `batch` ints, on
// every device (a CUDA kernel copies cuSOLVER's device-side info back before it returns, which
// waits for its work). info < 0 is an argument LAPACK rejected (a bug in the caller); info > 0
// is the routine's own report (a zero pivot, a minor that is not positive-definite, no
// convergence), which the op turns into its error. A kernel throws an ember::Error naming `op`
// for what it cannot do (a workspace LAPACK cannot address, a failed cuSOLVER call).
//
// No kernel checks for NaN or inf: the ops never hand one a matrix holding them (LAPACK's
// iterative drivers never return on some).
#pragma once

#include <cstdint>

namespace ember {

/// A batch of column-major matrices: `batch` of them, each rows x cols with leading dimension
/// `ld` (>= max(rows, 1)), `batch_stride` elements apart. A read-only operand may use stride 0 to
/// repeat one matrix over the batch.
struct LapackMatrices {
  void* data = nullptr;
  int64_t batch = 1;
  int64_t rows = 0, cols = 0;
  int64_t ld = 1;
  int64_t batch_stride = 0;

  template <class T>
  T* at(int64_t b) const {
    return static_cast<T*>(data) + b * batch_stride;
  }
};

/// What every LAPACK kernel takes besides its operands: the op the user called (named in the
/// kernel's errors) and where LAPACK's info goes (host, one int per batch entry).
struct LapackCall {
  const char* op = "linalg";
  int32_t* info = nullptr;
};

/// getrf: A = P L U in place (L unit lower, U upper, both in `a`); `pivots` gets min(rows, cols)
/// 1-based row interchanges per entry (int32, device memory). info > 0: U(info, info) is exactly
/// zero (the factorisation is complete, U is singular).
struct LuFactorParams : LapackCall {
  LapackMatrices a;
  int32_t* pivots = nullptr;
};

/// getrs: solves op(A) X = B for square A from getrf's factors, X overwriting `b` (n x nrhs
/// each). `lu.batch_stride == 0` and `pivot_stride == 0` share one factorisation over b's batch.
/// `transpose`: op(A) = Aᵀ.
struct LuSolveParams : LapackCall {
  LapackMatrices lu;
  const int32_t* pivots = nullptr;
  int64_t pivot_stride = 0;
  bool transpose = false;
  LapackMatrices b;
};

/// potrf: A = L Lᵀ (or Uᵀ U with `upper`) in place, reading and writing only that triangle of
/// square `a`. info > 0: the leading minor of that order is not positive-definite.
struct CholeskyParams : LapackCall {
  LapackMatrices a;
  bool upper = false;
};

/// geqrf: A = Q R in place: R in the upper triangle, the Householder reflectors below it with
/// their scalars in `tau` (min(rows, cols) per entry).
struct QrFactorParams : LapackCall {
  LapackMatrices a;
  void* tau = nullptr;
};

/// orgqr: overwrites `a` (rows >= cols >= k) with the first cols columns of Q = H_1 ... H_k, the
/// reflectors being geqrf's (in a's first k columns, scalars in `tau`, `k` per entry).
struct QrOrgqrParams : LapackCall {
  LapackMatrices a;
  int64_t k = 0;
  const void* tau = nullptr;
};

/// A = U diag(S) Vᵀ of m x n `a` (any shape; `a` is destroyed). S: k = min(m, n) per entry,
/// descending. With `compute_uv`, `u` gets U (m x m with `full_matrices`, else its first k
/// columns) and `vt` gets Vᵀ (n x n, else its first k rows); without it u and vt are not
/// touched. info > 0: the iteration did not converge.
struct SvdParams : LapackCall {
  LapackMatrices a;
  void* s = nullptr;
  bool compute_uv = true;
  bool full_matrices = false;
  LapackMatrices u, vt;
};

/// A = V diag(W) Vᵀ of symmetric `a` (n x n), reading only its lower triangle (upper with
/// `upper`). W: n per entry, ascending. With `vectors`, `a` is overwritten by V (eigenvectors in
/// its columns). info > 0: the iteration did not converge.
struct EighParams : LapackCall {
  LapackMatrices a;
  void* w = nullptr;
  bool upper = false;
  bool vectors = true;
};

}  // namespace ember
