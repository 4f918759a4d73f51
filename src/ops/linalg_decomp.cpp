// ember::linalg's orthogonal decompositions on the CPU through LAPACK (float32/float64, batched
// over the leading dims): qr, svd, svdvals, eigh, eigvalsh. The LU- and Cholesky-based ops are in
// linalg_lu.cpp, matrix_exp in linalg_matrix_exp.cpp, the norms in linalg_norm.cpp.
//
// LAPACK comes with OpenBLAS (already the GEMM library), and these are the drivers PyTorch calls
// on the CPU (geqrf/orgqr, gesdd, syevd), so results agree with it down to the signs of the
// singular vectors. (Eigen did this until its templates cost 3-4 minutes of every CI run: BDCSVD
// alone compiled for 130 s, and CI builds the library twice.)
//
// A matrix with a NaN or an inf is never handed to LAPACK (gesdd loops forever on some matrices
// holding an inf): svd, svdvals, eigh and eigvalsh throw for it, as PyTorch; qr answers NaN.
//
// Each matrix is copied into a column-major buffer, factored, and written back: the copy is O(n²)
// against the O(n³) factorisation. Batches run one matrix after another (an error in one batch
// element must be thrown from this thread, not from inside an OpenMP region); LAPACK itself runs
// on OpenBLAS's threads.
#include <cctype>

#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/lapack.h"
#include "src/ops/linalg_common.h"

namespace ember::linalg {
using namespace detail;

std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode) {
  check_matrix("linalg.qr", A, false);
  EMBER_CHECK_VALUE(mode == "reduced" || mode == "complete" || mode == "r",
                    "linalg.qr: qr received unrecognized mode '{}' but expected one of 'reduced' "
                    "(default), 'r', or 'complete'",
                    mode);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  const int64_t q_cols = mode == "complete" ? m : k, r_rows = mode == "complete" ? m : k;
  autograd::OpRecording rec(A);
  Tensor Q =
      mode == "r" ? empty({0}, A.options()) : empty(with_matrix(batch, {m, q_cols}), A.options());
  Tensor R = empty(with_matrix(batch, {r_rows, n}), A.options());
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(k, 1))), work(1);
    for_each_matrix<T>(
        Ac,
        [&](int64_t b, ColMajor<T>& a) {
          if (k == 0) {  // no reflectors: Q is the identity, R is empty or zero
            T* r = R.data_ptr<T>() + b * r_rows * n;
            std::fill(r, r + r_rows * n, T(0));
            if (mode != "r") store_identity<T>(Q, b);
            return;
          }
          if (!finite_block(a, m, n)) {  // NaN factors, as PyTorch gives, without LAPACK
            store_nan<T>(R, b);
            if (mode != "r") store_nan<T>(Q, b);
            return;
          }
          const int mi = a.rows, ni = static_cast<int>(n), ki = static_cast<int>(k);
          T query{};
          check_lapack_call("linalg.qr", "geqrf",
                            lapack::geqrf(mi, ni, a.ptr(), a.ld, tau.data(), &query, -1));
          work.resize(static_cast<size_t>(workspace_size("linalg.qr", query, n, (m + n) * 64)));
          check_lapack_call("linalg.qr", "geqrf",
                            lapack::geqrf(mi, ni, a.ptr(), a.ld, tau.data(), work.data(),
                                          static_cast<int>(work.size())));
          // R is the upper triangle of the factored matrix (rows past n are zero).
          T* r = R.data_ptr<T>() + b * r_rows * n;
          for (int64_t i = 0; i < r_rows; ++i)
            for (int64_t j = 0; j < n; ++j) r[i * n + j] = i <= j ? a(i, j) : T(0);
          if (mode == "r") return;
          const int qc = static_cast<int>(q_cols);
          check_lapack_call("linalg.qr", "orgqr",
                            lapack::orgqr(mi, qc, ki, a.ptr(), a.ld, tau.data(), &query, -1));
          work.resize(std::max(work.size(), static_cast<size_t>(workspace_size(
                                                "linalg.qr", query, q_cols, (m + q_cols) * 64))));
          check_lapack_call("linalg.qr", "orgqr",
                            lapack::orgqr(mi, qc, ki, a.ptr(), a.ld, tau.data(), work.data(),
                                          static_cast<int>(work.size())));
          store(a, Q, b);
        },
        q_cols);
  });
  if (rec) autograd::derivatives::linalg_qr(mode == "r" ? Tensor() : Q, R, A, mode);
  return {Q, R};
}

namespace {
// S (descending), and U/Vh when wanted, of every matrix in A (LAPACK's divide-and-conquer gesdd,
// PyTorch's default driver on the CPU).
void svd_impl(const char* op, const Tensor& A, bool want_uv, bool full, Tensor* U, Tensor* S,
              Tensor* Vh) {
  check_matrix(op, A, false);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  const bool batched = !batch.empty();
  const int64_t u_cols = full ? m : k, vt_rows = full ? n : k;
  *S = empty(with_matrix(batch, {k}), A.options());
  if (want_uv) {
    *U = empty(with_matrix(batch, {m, u_cols}), A.options());
    *Vh = empty(with_matrix(batch, {vt_rows, n}), A.options());
  }
  const Tensor Ac = A.contiguous();
  const char jobz = !want_uv ? 'N' : full ? 'A' : 'S';
  // gesdd's documented minimum workspace (LAPACK 3.x) for this jobz.
  const int64_t mx = std::max(m, n);
  const int64_t gesdd_min_work = jobz == 'N'   ? 3 * k + std::max(mx, 7 * k)
                                 : jobz == 'S' ? 4 * k * k + 7 * k
                                               : 4 * k * k + 6 * k + mx;
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* s_out = S->data_ptr<T>();
    ColMajor<T> u(want_uv ? m : 1, want_uv ? u_cols : 1),
        vt(want_uv ? vt_rows : 1, want_uv ? n : 1);
    std::vector<T> work(1);
    std::vector<int> iwork(static_cast<size_t>(std::max<int64_t>(8 * k, 1)));
    for_each_matrix<T>(Ac, [&](int64_t b, ColMajor<T>& a) {
      if (k == 0) {  // nothing to decompose: any orthonormal bases do
        if (want_uv) {
          store_identity<T>(*U, b);
          store_identity<T>(*Vh, b);
        }
        return;
      }
      // As PyTorch: a NaN or an inf is an Error (PyTorch names the op linalg.svd for svdvals
      // too). Checked before gesdd, which never returns on some matrices holding an inf.
      EMBER_CHECK(finite_block(a, m, n),
                  "linalg.svd: {}The algorithm failed to converge because the input matrix "
                  "contained non-finite values.",
                  batch_prefix(b, batched));
      const int mi = a.rows, ni = static_cast<int>(n);
      T query{};
      check_lapack_call(op, "gesdd",
                        lapack::gesdd(jobz, mi, ni, a.ptr(), a.ld, s_out + b * k, u.ptr(), u.ld,
                                      vt.ptr(), vt.ld, &query, -1, iwork.data()));
      work.resize(std::max(work.size(), static_cast<size_t>(workspace_size(
                                            op, query, gesdd_min_work, (m + n) * 64))));
      const int info =
          lapack::gesdd(jobz, mi, ni, a.ptr(), a.ld, s_out + b * k, u.ptr(), u.ld, vt.ptr(), vt.ld,
                        work.data(), static_cast<int>(work.size()), iwork.data());
      check_lapack_call(op, "gesdd", info);
      EMBER_CHECK(info == 0,
                  "linalg.svd: {}The algorithm failed to converge because the input matrix is "
                  "ill-conditioned or has too many repeated singular values (error code: {}).",
                  batch_prefix(b, batched), info);
      if (want_uv) {
        store(u, *U, b);
        store(vt, *Vh, b);
      }
    });
  });
}

// 'L' or 'U', either case (PyTorch upper-cases the argument).
char check_uplo(const char* op, std::string_view UPLO) {
  const char c = UPLO.size() == 1 ? static_cast<char>(std::toupper(UPLO[0])) : '?';
  EMBER_CHECK_VALUE(c == 'L' || c == 'U', "{}: Expected UPLO argument to be 'L' or 'U', but got {}",
                    op, UPLO);
  return c;
}

// Eigenvalues (ascending) and, when wanted, eigenvectors through LAPACK's syevd, reading only the
// UPLO triangle.
void eigh_impl(const char* op, const Tensor& A, std::string_view UPLO, bool vectors, Tensor* L,
               Tensor* V) {
  check_matrix(op, A, true);
  const char uplo = check_uplo(op, UPLO);
  const int64_t n = A.size(-1);
  const DimVector batch = batch_shape(A);
  const bool batched = !batch.empty();
  *L = empty(with_matrix(batch, {n}), A.options());
  if (vectors) *V = empty(A.sizes(), A.options());
  const Tensor Ac = A.contiguous();
  const char jobz = vectors ? 'V' : 'N';
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* l_out = L->data_ptr<T>();
    std::vector<T> work(1);
    std::vector<int> iwork(1);
    for_each_matrix<T>(Ac, [&](int64_t b, ColMajor<T>& a) {
      if (n == 0) return;
      // syevd reads only the UPLO triangle; a non-finite value there is an Error (never handed
      // to the iterative driver).
      EMBER_CHECK(finite_block(a, n, n, uplo),
                  "{}: {}The algorithm failed to converge because the input matrix contained "
                  "non-finite values.",
                  op, batch_prefix(b, batched));
      const int ni = static_cast<int>(n);
      T query{};
      int iquery = 0;
      check_lapack_call(
          op, "syevd",
          lapack::syevd(jobz, uplo, ni, a.ptr(), a.ld, l_out + b * n, &query, -1, &iquery, -1));
      // syevd's documented minimums: its query returns exactly these.
      const int64_t min_work = vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1;
      const int64_t min_iwork = vectors ? 3 + 5 * n : 1;
      work.resize(std::max(work.size(), static_cast<size_t>(workspace_size(op, query, min_work))));
      iwork.resize(std::max(iwork.size(), static_cast<size_t>(std::max<int64_t>(
                                              {static_cast<int64_t>(iquery), min_iwork, 1}))));
      const int info = lapack::syevd(jobz, uplo, ni, a.ptr(), a.ld, l_out + b * n, work.data(),
                                     static_cast<int>(work.size()), iwork.data(),
                                     static_cast<int>(iwork.size()));
      check_lapack_call(op, "syevd", info);
      EMBER_CHECK(info == 0,
                  "{}: {}The algorithm failed to converge because the input matrix is "
                  "ill-conditioned or has too many repeated eigenvalues (error code: {}).",
                  op, batch_prefix(b, batched), info);
      if (vectors) store(a, *V, b);
    });
  });
}
}  // namespace

namespace {
// PyTorch takes `driver` only for CUDA inputs (cuSOLVER's gesvd, gesvdj, gesvda).
void check_svd_driver(const char* op, std::optional<std::string_view> driver) {
  EMBER_CHECK(!driver.has_value(),
              "{}: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
              "backend, but got driver '{}' for a CPU input. Hint: pass std::nullopt",
              op, driver ? std::string(*driver) : std::string());
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices,
                                       std::optional<std::string_view> driver) {
  check_svd_driver("linalg.svd", driver);
  autograd::OpRecording rec(A);
  Tensor U, S, Vh;
  svd_impl("linalg.svd", A, true, full_matrices, &U, &S, &Vh);
  if (rec) autograd::derivatives::linalg_svd(U, S, Vh, A, full_matrices);
  return {U, S, Vh};
}

// svdvals and eigvalsh need the singular vectors / eigenvectors for their gradient, so with
// autograd they run the full decomposition and record through it (as PyTorch does).
Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  check_svd_driver("linalg.svdvals", driver);
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
