// ember::linalg's orthogonal decompositions through the LAPACK slots (float32/float64, batched
// over the leading dims; any device that registers the slots): qr, svd, svdvals, eigh, eigvalsh.
// The LU- and Cholesky-based ops are in linalg_lu.cpp, matrix_exp in linalg_matrix_exp.cpp, the
// norms in linalg_norm.cpp.
//
// On the CPU the slots run the drivers PyTorch calls (geqrf/orgqr, gesdd, syevd), so results
// agree with it down to the signs of the singular vectors. (Eigen did this until its templates
// cost 3-4 minutes of every CI run: BDCSVD alone compiled for 130 s, and CI builds the library
// twice.) On CUDA they run cuSOLVER's (geqrf/orgqr, gesvd, syevd): the same factors, up to the
// signs of the vectors.
//
// A matrix with a NaN or an inf is never handed to LAPACK (gesdd loops forever on some matrices
// holding an inf): svd, svdvals, eigh and eigvalsh throw for it, as PyTorch; qr answers NaN.
//
// Each op copies the batch into one column-major tensor (O(n²) against the O(n³) factorisation),
// runs its routines over the whole batch, and reads the factors back with tensor ops.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/linalg_common.h"

namespace ember::linalg {
using namespace detail;

std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode) {
  const char* op = "linalg.qr";
  check_matrix(op, A, false);
  EMBER_CHECK_VALUE(mode == "reduced" || mode == "complete" || mode == "r",
                    "linalg.qr: qr received unrecognized mode '{}' but expected one of 'reduced' "
                    "(default), 'r', or 'complete'",
                    mode);
  const auto geqrf = lapack_kernel<OpId::geqrf>(op, A);
  const auto orgqr = lapack_kernel<OpId::orgqr>(op, A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  const int64_t count = batch_count(batch);
  const bool want_q = mode != "r";
  const int64_t q_cols = mode == "complete" ? m : k, r_rows = mode == "complete" ? m : k;
  autograd::OpRecording rec(A);
  Tensor Q, R;
  if (count == 0 || k == 0) {  // no reflectors: Q is the identity, R is empty or zero
    R = zeros(with_matrix(batch, {r_rows, n}), A.options());
    if (want_q) Q = eye(m, q_cols, A.options()).expand(with_matrix(batch, {m, q_cols})).clone();
  } else {
    const Tensor A3 = A.reshape({count, m, n});
    const FiniteMask finite = finite_mask(A3);  // NaN factors, as PyTorch gives, without LAPACK
    // Room for q_cols columns: the complete Q of a tall matrix has m (orgqr sets the extra ones).
    const Tensor a = keep_finite(finite, column_major(A3, q_cols));
    const Tensor tau = empty({count, k}, A.options());
    std::vector<int32_t> info = info_buffer(count);
    QrFactorParams f;
    f.op = op;
    f.info = info.data();
    f.a = matrices_of(a, n);
    f.tau = tau.data_ptr();
    geqrf(A.dtype(), f);
    check_lapack_call(op, "geqrf", info);
    // R is the upper triangle of the factored matrix (rows past n are zero).
    R = with_nan(finite, from_column_major(a, r_rows, n, 'U'))
            .reshape(with_matrix(batch, {r_rows, n}));
    if (want_q) {
      QrOrgqrParams o;
      o.op = op;
      o.info = info.data();
      o.a = matrices_of(a, q_cols);
      o.k = k;
      o.tau = tau.data_ptr();
      orgqr(A.dtype(), o);
      check_lapack_call(op, "orgqr", info);
      Q = with_nan(finite, from_column_major(a, m, q_cols))
              .reshape(with_matrix(batch, {m, q_cols}));
    }
  }
  if (!want_q) Q = empty({0}, A.options());
  if (rec) autograd::derivatives::linalg_qr(want_q ? Q : Tensor(), R, A, mode);
  return {Q, R};
}

namespace {
// S (descending), and U/Vh when wanted, of every matrix in A (gesdd on the CPU, PyTorch's default
// driver there; gesvd on CUDA).
void svd_impl(const char* op, const Tensor& A, bool want_uv, bool full, Tensor* U, Tensor* S,
              Tensor* Vh) {
  check_matrix(op, A, false);
  const auto kernel = lapack_kernel<OpId::svd>(op, A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  const bool batched = !batch.empty();
  const int64_t count = batch_count(batch);
  const int64_t u_cols = full ? m : k, vt_rows = full ? n : k;
  if (count == 0 || k == 0) {  // nothing to decompose: any orthonormal bases do
    *S = empty(with_matrix(batch, {k}), A.options());
    if (want_uv) {
      *U = eye(m, u_cols, A.options()).expand(with_matrix(batch, {m, u_cols})).clone();
      *Vh = eye(vt_rows, n, A.options()).expand(with_matrix(batch, {vt_rows, n})).clone();
    }
    return;
  }
  const Tensor A3 = A.reshape({count, m, n});
  const FiniteMask finite = finite_mask(A3);
  const Tensor a = keep_finite(finite, column_major(A3));
  const Tensor s = empty({count, k}, A.options());
  Tensor u, vt;  // column-major: (count, u_cols, m) and (count, n, vt_rows)
  std::vector<int32_t> info = info_buffer(count);
  SvdParams p;
  p.op = op;
  p.info = info.data();
  p.a = matrices_of(a);
  p.s = s.data_ptr();
  p.compute_uv = want_uv;
  p.full_matrices = full;
  if (want_uv) {
    u = empty({count, u_cols, m}, A.options());
    vt = empty({count, n, vt_rows}, A.options());
    p.u = matrices_of(u);
    p.vt = matrices_of(vt);
  }
  kernel(A.dtype(), p);
  check_lapack_call(op, A.is_cuda() ? "gesvd" : "gesdd", info);
  for (int64_t b = 0; b < count; ++b) {
    // As PyTorch: a NaN or an inf is an Error (PyTorch names the op linalg.svd for svdvals too).
    EMBER_CHECK(finite[b],
                "linalg.svd: {}The algorithm failed to converge because the input matrix "
                "contained non-finite values.",
                batch_prefix(b, batched));
    EMBER_CHECK(info[static_cast<size_t>(b)] == 0,
                "linalg.svd: {}The algorithm failed to converge because the input matrix is "
                "ill-conditioned or has too many repeated singular values (error code: {}).",
                batch_prefix(b, batched), info[static_cast<size_t>(b)]);
  }
  *S = s.reshape(with_matrix(batch, {k}));
  if (want_uv) {
    *U = from_column_major(u, m, u_cols).reshape(with_matrix(batch, {m, u_cols}));
    *Vh = from_column_major(vt, vt_rows, n).reshape(with_matrix(batch, {vt_rows, n}));
  }
}

// 'L' or 'U', either case (PyTorch upper-cases the argument).
char check_uplo(const char* op, std::string_view UPLO) {
  const char c = UPLO.size() == 1 ? static_cast<char>(std::toupper(UPLO[0])) : '?';
  EMBER_CHECK_VALUE(c == 'L' || c == 'U', "{}: Expected UPLO argument to be 'L' or 'U', but got {}",
                    op, UPLO);
  return c;
}

// Eigenvalues (ascending) and, when wanted, eigenvectors through syevd, reading only the UPLO
// triangle.
void eigh_impl(const char* op, const Tensor& A, std::string_view UPLO, bool vectors, Tensor* L,
               Tensor* V) {
  check_matrix(op, A, true);
  const char uplo = check_uplo(op, UPLO);
  const auto kernel = lapack_kernel<OpId::eigh>(op, A);
  const int64_t n = A.size(-1);
  const DimVector batch = batch_shape(A);
  const bool batched = !batch.empty();
  const int64_t count = batch_count(batch);
  if (count == 0 || n == 0) {
    *L = empty(with_matrix(batch, {n}), A.options());
    if (vectors) *V = empty(A.sizes(), A.options());
    return;
  }
  const Tensor A3 = A.reshape({count, n, n});
  // syevd reads only the UPLO triangle; a non-finite value there is an Error (never handed to
  // the iterative driver).
  const FiniteMask finite = finite_mask(A3, uplo);
  const Tensor a = keep_finite(finite, column_major(A3));
  const Tensor w = empty({count, n}, A.options());
  std::vector<int32_t> info = info_buffer(count);
  EighParams p;
  p.op = op;
  p.info = info.data();
  p.a = matrices_of(a);
  p.w = w.data_ptr();
  p.upper = uplo == 'U';
  p.vectors = vectors;
  kernel(A.dtype(), p);
  check_lapack_call(op, "syevd", info);
  for (int64_t b = 0; b < count; ++b) {
    EMBER_CHECK(finite[b],
                "{}: {}The algorithm failed to converge because the input matrix contained "
                "non-finite values.",
                op, batch_prefix(b, batched));
    EMBER_CHECK(info[static_cast<size_t>(b)] == 0,
                "{}: {}The algorithm failed to converge because the input matrix is "
                "ill-conditioned or has too many repeated eigenvalues (error code: {}).",
                op, batch_prefix(b, batched), info[static_cast<size_t>(b)]);
  }
  *L = w.reshape(with_matrix(batch, {n}));
  if (vectors) *V = from_column_major(a, n, n).reshape(A.sizes());
}
}  // namespace

namespace {
// PyTorch takes `driver` only for CUDA inputs (cuSOLVER's gesvd, gesvdj, gesvda); Ember's CUDA
// kernel is gesvd.
void check_svd_driver(const char* op, const Tensor& A, std::optional<std::string_view> driver) {
  if (!driver) return;
  check_defined(A, op, "A");
  const std::string name(*driver);
  EMBER_CHECK(A.is_cuda(),
              "{}: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
              "backend, but got driver '{}' for a CPU input. Hint: pass std::nullopt",
              op, name);
  EMBER_CHECK_VALUE(name == "gesvd" || name == "gesvdj" || name == "gesvda",
                    "{}: driver should be one of 'gesvd', 'gesvdj' or 'gesvda', but got '{}'", op,
                    name);
  EMBER_CHECK_AS(NotImplementedError, name == "gesvd",
                 "{}: driver '{}' is not implemented; Ember's CUDA SVD is cuSOLVER's gesvd. Hint: "
                 "pass \"gesvd\" or std::nullopt",
                 op, name);
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices,
                                       std::optional<std::string_view> driver) {
  check_svd_driver("linalg.svd", A, driver);
  autograd::OpRecording rec(A);
  Tensor U, S, Vh;
  svd_impl("linalg.svd", A, true, full_matrices, &U, &S, &Vh);
  if (rec) autograd::derivatives::linalg_svd(U, S, Vh, A, full_matrices);
  return {U, S, Vh};
}

// svdvals and eigvalsh need the singular vectors / eigenvectors for their gradient, so with
// autograd they run the full decomposition and record through it (as PyTorch does).
Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  check_svd_driver("linalg.svdvals", A, driver);
  if (autograd::needs_grad(A)) return std::get<1>(svd(A, false));
  Tensor S;
  svd_impl("linalg.svdvals", A, false, false, nullptr, &S, nullptr);
  return S;
}

std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO) {
  autograd::OpRecording rec(A);
  Tensor L, V;
  eigh_impl("linalg.eigh", A, UPLO, true, &L, &V);
  if (rec) autograd::derivatives::linalg_eigh(L, V, A, UPLO);
  return {L, V};
}

Tensor eigvalsh(const Tensor& A, std::string_view UPLO) {
  if (autograd::needs_grad(A)) return std::get<0>(eigh(A, UPLO));
  Tensor L;
  eigh_impl("linalg.eigvalsh", A, UPLO, false, &L, nullptr);
  return L;
}

}  // namespace ember::linalg
