// The CPU LAPACK kernels (lapack_kernels.h): each runs its routine once per batch entry on the
// column-major matrices the op laid out (kernels/common/lapack_params.h), with the drivers PyTorch
// uses on the CPU (getrf/getrs, potrf, geqrf/orgqr, gesdd, syevd), so factors match it down to
// their signs.
//
// Entries run one after another, and an error must be thrown from this thread, not from inside a
// parallel region. (LAPACK ran on OpenBLAS's threads when this was written; OpenBLAS is now pinned
// to its calling thread, blas_core.cpp, so a batch could run over the OpenMP team: not measured.) A
// workspace is queried once per call (every entry has the same shape) and reused across the batch.
#include "kernels/cpu/lapack_kernels.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "kernels/common/visit.h"
#include "kernels/cpu/lapack.h"
#include "kernels/cpu/lapack_workspace.h"
#include "src/core/check.h"

namespace ember::cpu {
namespace {

// The ops check every row and column count against INT_MAX (LP64 LAPACK) before dispatch.
int lapack_int(int64_t v) { return static_cast<int>(v); }

template <class T>
int workspace_or_throw(const char* op, T query, int64_t minimum, int64_t headroom = 0) {
  const std::optional<int> size = lapack::workspace(query, minimum, headroom);
  EMBER_CHECK(size.has_value(),
              "{}: the matrix is too large for LAPACK: it needs a workspace of at least {} "
              "elements, and LAPACK (32-bit integers) takes at most {}",
              op, minimum, INT_MAX);
  return *size;
}

// A workspace query that LAPACK refused (info < 0) is the answer for every entry.
void report_all(const LapackCall& p, int64_t batch, int info) {
  std::fill(p.info, p.info + batch, info);
}

template <class T>
void lu_factor(const LuFactorParams& p) {
  const LapackMatrices& a = p.a;
  const int64_t k = std::min(a.rows, a.cols);
  for (int64_t b = 0; b < a.batch; ++b)
    p.info[b] = lapack::getrf(lapack_int(a.rows), lapack_int(a.cols), a.at<T>(b), lapack_int(a.ld),
                              p.pivots + b * k);
}

template <class T>
void lu_solve(const LuSolveParams& p) {
  const char trans = p.transpose ? 'T' : 'N';
  for (int64_t b = 0; b < p.b.batch; ++b) {
    if (p.b.cols == 0) {  // nothing to solve for
      p.info[b] = 0;
      continue;
    }
    p.info[b] = lapack::getrs(trans, lapack_int(p.lu.rows), lapack_int(p.b.cols), p.lu.at<T>(b),
                              lapack_int(p.lu.ld), p.pivots + b * p.pivot_stride, p.b.at<T>(b),
                              lapack_int(p.b.ld));
  }
}

template <class T>
void cholesky(const CholeskyParams& p) {
  const char uplo = p.upper ? 'U' : 'L';
  for (int64_t b = 0; b < p.a.batch; ++b)
    p.info[b] = lapack::potrf(uplo, lapack_int(p.a.rows), p.a.at<T>(b), lapack_int(p.a.ld));
}

template <class T>
void geqrf(const QrFactorParams& p) {
  const LapackMatrices& a = p.a;
  const int m = lapack_int(a.rows), n = lapack_int(a.cols), lda = lapack_int(a.ld);
  const int64_t k = std::min(a.rows, a.cols);
  if (a.batch == 0) return;
  if (k == 0) return report_all(p, a.batch, 0);  // no reflectors
  T* tau = static_cast<T*>(p.tau);
  T query{};
  const int asked = lapack::geqrf(m, n, a.at<T>(0), lda, tau, &query, -1);
  if (asked < 0) return report_all(p, a.batch, asked);
  std::vector<T> work(
      static_cast<size_t>(workspace_or_throw(p.op, query, a.cols, (a.rows + a.cols) * 64)));
  for (int64_t b = 0; b < a.batch; ++b)
    p.info[b] = lapack::geqrf(m, n, a.at<T>(b), lda, tau + b * k, work.data(),
                              static_cast<int>(work.size()));
}

template <class T>
void orgqr(const QrOrgqrParams& p) {
  const LapackMatrices& a = p.a;
  const int m = lapack_int(a.rows), n = lapack_int(a.cols), k = lapack_int(p.k);
  const int lda = lapack_int(a.ld);
  if (a.batch == 0) return;
  const T* tau = static_cast<const T*>(p.tau);
  T query{};
  const int asked = lapack::orgqr(m, n, k, a.at<T>(0), lda, tau, &query, -1);
  if (asked < 0) return report_all(p, a.batch, asked);
  std::vector<T> work(
      static_cast<size_t>(workspace_or_throw(p.op, query, a.cols, (a.rows + a.cols) * 64)));
  for (int64_t b = 0; b < a.batch; ++b)
    p.info[b] = lapack::orgqr(m, n, k, a.at<T>(b), lda, tau + b * p.k, work.data(),
                              static_cast<int>(work.size()));
}

// gesdd, LAPACK's divide and conquer (PyTorch's default driver on the CPU).
template <class T>
void svd(const SvdParams& p) {
  const LapackMatrices& a = p.a;
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n), mx = std::max(m, n);
  if (a.batch == 0) return;
  if (k == 0) return report_all(p, a.batch, 0);
  const char jobz = !p.compute_uv ? 'N' : p.full_matrices ? 'A' : 'S';
  // gesdd's documented minimum workspace (LAPACK 3.x) for this jobz.
  const int64_t min_work = jobz == 'N'   ? 3 * k + std::max(mx, 7 * k)
                           : jobz == 'S' ? 4 * k * k + 7 * k
                                         : 4 * k * k + 6 * k + mx;
  // Without U and V, gesdd references neither: a dummy with ld 1 stands in.
  T dummy{};
  auto u_at = [&](int64_t b) { return p.compute_uv ? p.u.at<T>(b) : &dummy; };
  auto vt_at = [&](int64_t b) { return p.compute_uv ? p.vt.at<T>(b) : &dummy; };
  const int ldu = p.compute_uv ? lapack_int(p.u.ld) : 1;
  const int ldvt = p.compute_uv ? lapack_int(p.vt.ld) : 1;
  const int mi = lapack_int(m), ni = lapack_int(n), lda = lapack_int(a.ld);
  T* s = static_cast<T*>(p.s);
  std::vector<int> iwork(static_cast<size_t>(8 * k));
  T query{};
  const int asked = lapack::gesdd(jobz, mi, ni, a.at<T>(0), lda, s, u_at(0), ldu, vt_at(0), ldvt,
                                  &query, -1, iwork.data());
  if (asked < 0) return report_all(p, a.batch, asked);
  std::vector<T> work(static_cast<size_t>(workspace_or_throw(p.op, query, min_work, (m + n) * 64)));
  for (int64_t b = 0; b < a.batch; ++b)
    p.info[b] = lapack::gesdd(jobz, mi, ni, a.at<T>(b), lda, s + b * k, u_at(b), ldu, vt_at(b),
                              ldvt, work.data(), static_cast<int>(work.size()), iwork.data());
}

// syevd, divide and conquer, as PyTorch on the CPU.
template <class T>
void eigh(const EighParams& p) {
  const LapackMatrices& a = p.a;
  const int64_t n = a.rows;
  if (a.batch == 0) return;
  if (n == 0) return report_all(p, a.batch, 0);
  const char jobz = p.vectors ? 'V' : 'N', uplo = p.upper ? 'U' : 'L';
  const int ni = lapack_int(n), lda = lapack_int(a.ld);
  T* w = static_cast<T*>(p.w);
  T query{};
  int iquery = 0;
  const int asked = lapack::syevd(jobz, uplo, ni, a.at<T>(0), lda, w, &query, -1, &iquery, -1);
  if (asked < 0) return report_all(p, a.batch, asked);
  // syevd's documented minimums: its query returns exactly these.
  const int64_t min_work = p.vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1;
  const int64_t min_iwork = p.vectors ? 3 + 5 * n : 1;
  std::vector<T> work(static_cast<size_t>(workspace_or_throw(p.op, query, min_work)));
  std::vector<int> iwork(
      static_cast<size_t>(std::max<int64_t>({static_cast<int64_t>(iquery), min_iwork, 1})));
  for (int64_t b = 0; b < a.batch; ++b)
    p.info[b] =
        lapack::syevd(jobz, uplo, ni, a.at<T>(b), lda, w + b * n, work.data(),
                      static_cast<int>(work.size()), iwork.data(), static_cast<int>(iwork.size()));
}

}  // namespace

void lapack_lu_factor(ScalarType dtype, const LuFactorParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { lu_factor<decltype(tag)>(p); });
}
void lapack_lu_solve(ScalarType dtype, const LuSolveParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { lu_solve<decltype(tag)>(p); });
}
void lapack_cholesky(ScalarType dtype, const CholeskyParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { cholesky<decltype(tag)>(p); });
}
void lapack_geqrf(ScalarType dtype, const QrFactorParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { geqrf<decltype(tag)>(p); });
}
void lapack_orgqr(ScalarType dtype, const QrOrgqrParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { orgqr<decltype(tag)>(p); });
}
void lapack_svd(ScalarType dtype, const SvdParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { svd<decltype(tag)>(p); });
}
void lapack_eigh(ScalarType dtype, const EighParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { eigh<decltype(tag)>(p); });
}

}  // namespace ember::cpu
