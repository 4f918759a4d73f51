// ember::linalg's LU- and Cholesky-based ops on the CPU through LAPACK (float32/float64, batched
// over the leading dims, broadcast for solve): solve and inv = solve(A, I) (getrf of Aᵀ + getrs
// 'T', as PyTorch), inv_ex, cholesky and cholesky_ex (potrf), det and slogdet (getrf). The error
// texts follow PyTorch's, which calls the same routines: getrf's info is the first exactly-zero
// pivot, potrf's the order of the first leading minor that is not positive-definite.
// No routine is handed a matrix with a NaN or an inf (see finite_block): solve, inv, det and
// slogdet answer NaN for it, as PyTorch's LAPACK calls end up doing; cholesky reports the leading
// minor that holds it as not positive-definite, as potrf does for a NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/lapack.h"
#include "src/ops/linalg_common.h"

namespace ember::linalg {
using namespace detail;

namespace {
// PyTorch's way to solve A X = B: Ember's row-major A read as column-major is Aᵀ, so getrf
// factors Aᵀ straight from a plain copy and getrs('T') solves with it. Same pivots and bits as
// PyTorch, and the same "diagonal element" in the singular-matrix error. Returns getrf's info.
template <class T>
int factor_transposed(const char* op, const T* a, int64_t n, ColMajor<T>& lu,
                      std::vector<int>& pivots) {
  std::copy(a, a + n * n, lu.data.begin());
  pivots.resize(static_cast<size_t>(n));
  const int info = lapack::getrf(lu.rows, lu.cols, lu.ptr(), lu.ld, pivots.data());
  check_lapack_call(op, "getrf", info);
  return info;
}

template <class T>
void solve_factored(const char* op, const ColMajor<T>& lu, const std::vector<int>& pivots,
                    ColMajor<T>& rhs) {
  if (rhs.cols == 0) return;
  check_lapack_call(op, "getrs",
                    lapack::getrs('T', lu.rows, rhs.cols, lu.data.data(), lu.ld, pivots.data(),
                                  rhs.ptr(), rhs.ld));
}
}  // namespace

namespace {
template <class T>
bool finite_row_major(const T* a, int64_t count) {
  return std::all_of(a, a + count, [](T x) { return std::isfinite(x); });
}

// inv(A) = solve(A, I), as in PyTorch (getri would round differently). A matrix with a NaN or
// an inf gets a NaN inverse without LAPACK (PyTorch's answer is NaN there too). A singular matrix
// is an Error, or with `info` its batch element's first zero pivot (the inverse then holds getrs'
// infs and NaNs, as linalg.inv_ex's).
Tensor inv_impl(const char* op, const Tensor& A, Tensor* info) {
  check_matrix(op, A, true);
  autograd::OpRecording rec(A);
  const bool batched = A.dim() > 2;
  const int64_t n = A.size(-1), count = batch_count(batch_shape(A));
  Tensor out = empty(A.sizes(), A.options());
  if (info) *info = zeros(batch_shape(A), TensorOptions().dtype(kInt));
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<int> pivots;
    ColMajor<T> lu(n, n), x(n, n);
    for (int64_t b = 0; b < count && n > 0; ++b) {
      const T* a = Ac.data_ptr<T>() + b * n * n;
      if (!finite_row_major(a, n * n)) {
        store_nan<T>(out, b);
        continue;
      }
      const int zero = factor_transposed(op, a, n, lu, pivots);
      if (info) {
        info->data_ptr<int>()[b] = zero;
      } else {
        EMBER_CHECK(zero == 0,
                    "{}: {}The diagonal element {} is zero, the inversion could not be completed "
                    "because the input matrix is singular.",
                    op, batch_prefix(b, batched), zero);
      }
      std::fill(x.data.begin(), x.data.end(), T(0));  // getrs left the last inverse here
      for (int64_t i = 0; i < n; ++i) x(i, i) = T(1);
      solve_factored(op, lu, pivots, x);
      store(x, out, b);
    }
  });
  if (rec) autograd::derivatives::linalg_inv(out, A);
  return out;
}
}  // namespace

Tensor inv(const Tensor& A) { return inv_impl("linalg.inv", A, nullptr); }

std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors) {
  Tensor info;
  Tensor out = inv_impl("linalg.inv_ex", A, check_errors ? nullptr : &info);
  if (check_errors) info = zeros(batch_shape(A), TensorOptions().dtype(kInt));
  return {out, info};
}

namespace {
// Element offsets of each batch item of contiguous `t` inside the broadcast `batch` shape.
std::vector<int64_t> broadcast_offsets(const Tensor& t, int64_t tail_dims, IntArrayRef batch) {
  const int64_t tb = t.dim() - tail_dims, nb = static_cast<int64_t>(batch.size());
  DimVector strides(batch.size(), 0);
  for (int64_t i = 0; i < tb; ++i)
    if (t.size(i) != 1) strides[static_cast<size_t>(nb - tb + i)] = t.stride(i);
  std::vector<int64_t> offsets(static_cast<size_t>(batch_count(batch)));
  DimVector idx(batch.size(), 0);
  for (size_t k = 0; k < offsets.size(); ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < batch.size(); ++d) off += idx[d] * strides[d];
    offsets[k] = off;
    for (size_t d = batch.size(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  return offsets;
}
}  // namespace

Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  if (!left) {
    // X A = B is Aᵀ Xᵀ = Bᵀ (both transposes are views, recorded as such).
    check_defined(B, "linalg.solve", "B");
    EMBER_CHECK(B.dim() >= 2,
                "linalg.solve: Vector broadcasting of the left hand side is not supported for "
                "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1). Hint: "
                "B must be a (batch of) matrices");
    check_matrix("linalg.solve", A, true);
    return solve(A.mT(), B.mT(), true).mT();
  }
  check_matrix("linalg.solve", A, true);
  check_input("linalg.solve", B, "B");
  EMBER_CHECK_TYPE(A.dtype() == B.dtype(),
                   "linalg.solve: expected A and B to have the same dtype, but got {} and {}",
                   A.dtype(), B.dtype());
  const int64_t n = A.size(-1);
  // B is a (batch of) vector(s) when 1-D, or when it is A's shape without the last dim.
  const bool vector_case =
      B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == A.sizes().slice(0, A.dim() - 1));
  EMBER_CHECK(vector_case || B.dim() >= 2,
              "linalg.solve: B must be a vector or a (batch of) matrices, but got a {}-D tensor",
              B.dim());
  const int64_t b_rows = vector_case ? B.size(-1) : B.size(-2);
  EMBER_CHECK(b_rows == n,
              "linalg.solve: Incompatible shapes of A and B for the equation AX = B ({} and {}). "
              "Hint: B.size({}) must equal A.size(-1)",
              A.sizes(), B.sizes(), vector_case ? -1 : -2);
  // The solve is of matrices; a vector B is unsqueezed first and the result squeezed after, both
  // recorded as views, so the solve's own formula only sees the matrix case.
  const Tensor Bm = vector_case ? B.unsqueeze(-1) : B;  // (*, n, k)
  check_lapack_size("linalg.solve", Bm, "B");
  const int64_t k = Bm.size(-1);
  const DimVector batch =
      broadcast_shape(batch_shape(A), Bm.sizes().slice(0, Bm.dim() - 2), "linalg.solve");
  // Batch elements are named when A is batched (as PyTorch; a batched B alone is not).
  const bool batched = A.dim() > 2;
  Tensor X = empty(with_matrix(batch, {n, k}), A.options());
  {
    autograd::OpRecording rec(A, Bm);
    const Tensor Ac = A.contiguous(), Bc = Bm.contiguous();
    const std::vector<int64_t> a_off = broadcast_offsets(Ac, 2, batch);
    const std::vector<int64_t> b_off = broadcast_offsets(Bc, 2, batch);
    visit_float(A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      std::vector<int> pivots;
      ColMajor<T> lu(n, n), rhs(n, k);
      int64_t factored = -1;  // a_off of the matrix in `lu`: a broadcast A is factored once
      for (size_t i = 0; i < a_off.size() && n > 0; ++i) {
        // A NaN or inf in A or in this B gives a NaN solution, without LAPACK (PyTorch's is NaN
        // or inf there).
        if (!finite_row_major(Ac.data_ptr<T>() + a_off[i], n * n) ||
            !finite_row_major(Bc.data_ptr<T>() + b_off[i], n * k)) {
          store_nan<T>(X, static_cast<int64_t>(i));
          continue;
        }
        if (a_off[i] != factored) {
          const int zero =
              factor_transposed("linalg.solve", Ac.data_ptr<T>() + a_off[i], n, lu, pivots);
          EMBER_CHECK(zero == 0,
                      "linalg.solve: {}The solver failed because the input matrix is singular.",
                      batch_prefix(static_cast<int64_t>(i), batched));
          factored = a_off[i];
        }
        load(Bc.data_ptr<T>() + b_off[i], n, k, rhs);
        solve_factored("linalg.solve", lu, pivots, rhs);
        store(rhs, X, static_cast<int64_t>(i));
      }
    });
    if (rec) autograd::derivatives::linalg_solve(X, A, Bm);
  }
  return vector_case ? X.squeeze(-1) : X;
}

namespace {
// A = L Lᵀ (or Uᵀ U) through potrf. A matrix that is not positive-definite is an Error, or with
// `info` the order of its first leading minor that is not (the factor then holds what potrf left,
// as linalg.cholesky_ex's). A non-finite value in the triangle read is reported the same way,
// without LAPACK: potrf would find it at that minor too (NaN fails its test).
Tensor cholesky_impl(const char* op, const Tensor& A, bool upper, Tensor* info) {
  check_matrix(op, A, true);
  autograd::OpRecording rec(A);
  const bool batched = A.dim() > 2;
  const int64_t n = A.size(-1);
  const char uplo = upper ? 'U' : 'L';
  Tensor out = empty(A.sizes(), A.options());
  if (info) *info = zeros(batch_shape(A), TensorOptions().dtype(kInt));
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix<T>(Ac, [&](int64_t b, ColMajor<T>& a) {
      if (n == 0) return;
      // Reads A's lower triangle, or its upper one for `upper` (as PyTorch: A = UᵀU from the
      // upper triangle); info is the order of the first leading minor that is not
      // positive-definite.
      const int bad = first_nonfinite_minor(a, n, uplo);
      int order = bad;
      if (bad == 0) {
        order = lapack::potrf(uplo, a.rows, a.ptr(), a.ld);
        check_lapack_call(op, "potrf", order);
      }
      if (info) {
        info->data_ptr<int>()[b] = order;
      } else {
        EMBER_CHECK(order == 0,
                    "{}: {}The factorization could not be completed because the input is not "
                    "positive-definite (the leading minor of order {} is not positive-definite).",
                    op, batch_prefix(b, batched), order);
      }
      if (bad != 0) {
        store_nan<T>(out, b);
        return;
      }
      T* dst = out.data_ptr<T>() + b * n * n;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) dst[i * n + j] = (upper ? i <= j : j <= i) ? a(i, j) : T(0);
    });
  });
  if (rec) autograd::derivatives::linalg_cholesky(out, A, upper);
  return out;
}
}  // namespace

Tensor cholesky(const Tensor& A, bool upper) {
  return cholesky_impl("linalg.cholesky", A, upper, nullptr);
}

std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  Tensor info;
  Tensor L = cholesky_impl("linalg.cholesky_ex", A, upper, check_errors ? nullptr : &info);
  if (check_errors) info = zeros(batch_shape(A), TensorOptions().dtype(kInt));
  return {L, info};
}

namespace {
// sign and log|det|, or det, from one LU factorisation: det = sign(P) · Π U_ii. A singular matrix
// is no error here (getrf's info > 0): its determinant is 0.
template <class T>
void lu_det(const char* op, ColMajor<T>& a, std::vector<int>& pivots, T* sign, T* logabs, T* det) {
  if (a.rows == 0) {
    if (sign) *sign = 1, *logabs = 0;
    if (det) *det = 1;
    return;
  }
  if (!finite_block(a, a.rows, a.cols)) {  // NaN, as PyTorch's LU gives, without LAPACK
    const T nan = std::numeric_limits<T>::quiet_NaN();
    if (sign) *sign = nan, *logabs = nan;
    if (det) *det = nan;
    return;
  }
  pivots.resize(static_cast<size_t>(a.rows));
  check_lapack_call(op, "getrf", lapack::getrf(a.rows, a.cols, a.ptr(), a.ld, pivots.data()));
  T permutation = 1, s = 1, la = 0, product = 1;
  for (int i = 0; i < a.rows; ++i) {
    if (pivots[static_cast<size_t>(i)] != i + 1) permutation = -permutation;  // a row swap
    const T d = a(i, i);
    product *= d;
    if (d < 0) s = -s;
    if (d == 0) s = 0;
    if (logabs) la += std::log(std::abs(d));
  }
  s *= permutation;
  if (sign) *sign = s, *logabs = s == 0 ? -std::numeric_limits<T>::infinity() : la;
  if (det) *det = permutation * product;
}
}  // namespace

Tensor det(const Tensor& A) {
  check_matrix("linalg.det", A, true);
  autograd::OpRecording rec(A);
  Tensor out = empty(batch_shape(A), A.options());
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data_ptr<T>();
    std::vector<int> pivots;
    for_each_matrix<T>(Ac, [&](int64_t b, ColMajor<T>& a) {
      lu_det<T>("linalg.det", a, pivots, nullptr, nullptr, o + b);
    });
  });
  if (rec) autograd::derivatives::linalg_det(out, A);
  return out;
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  check_matrix("linalg.slogdet", A, true);
  autograd::OpRecording rec(A);
  Tensor sign = empty(batch_shape(A), A.options()), logabs = empty(batch_shape(A), A.options());
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* s = sign.data_ptr<T>();
    T* l = logabs.data_ptr<T>();
    std::vector<int> pivots;
    for_each_matrix<T>(Ac, [&](int64_t b, ColMajor<T>& a) {
      lu_det<T>("linalg.slogdet", a, pivots, s + b, l + b, nullptr);
    });
  });
  if (rec) autograd::derivatives::linalg_slogdet(sign, logabs, A);
  return {sign, logabs};
}

}  // namespace ember::linalg
