// ember::linalg's LU- and Cholesky-based ops through the LAPACK slots (float32/float64, batched
// over the leading dims, broadcast for solve; any device that registers the slots): solve and
// inv = solve(A, I) (getrf of Aᵀ + getrs 'T', as PyTorch), inv_ex, cholesky and cholesky_ex
// (potrf), det and slogdet (getrf). The error texts follow PyTorch's, which calls the same
// routines: getrf's info is the first exactly-zero pivot, potrf's the order of the first leading
// minor that is not positive-definite.
// No routine is handed a matrix with a NaN or an inf (see FiniteMask): solve, inv, det and
// slogdet answer NaN for it, as PyTorch's LAPACK calls end up doing; cholesky reports the leading
// minor that holds it as not positive-definite, as potrf does for a NaN.
#include <cmath>
#include <limits>
#include <vector>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/linalg_common.h"

namespace ember::linalg {
using namespace detail;

namespace {
// getrf of every matrix of `lu` ((count, n, n), column-major) in place; returns the pivots
// ((count, n) int32 on lu's device) and leaves getrf's info in `info`.
Tensor lu_factor_in_place(const char* op, KernelFn<OpId::lu_factor> factor, const Tensor& lu,
                          std::vector<int32_t>& info) {
  const int64_t count = lu.size(0), n = lu.size(1);
  Tensor pivots = empty({count, n}, lu.options().dtype(kInt));
  info = info_buffer(count);
  LuFactorParams p;
  p.op = op;
  p.info = info.data();
  p.a = matrices_of(lu);
  p.pivots = pivots.data_ptr<int32_t>();
  factor(lu.dtype(), p);
  check_lapack_call(op, "getrf", info);
  return pivots;
}

// Solves with getrf's factors of Ember's row-major A, read as column-major Aᵀ: getrs('T') gives
// A X = B, X overwriting the column-major (count, k, n) `x`. A `lu` of one matrix serves all.
void lu_solve_in_place(const char* op, KernelFn<OpId::lu_solve> solve, const Tensor& lu,
                       const Tensor& pivots, const Tensor& x) {
  std::vector<int32_t> info = info_buffer(x.size(0));
  const bool shared = lu.size(0) == 1;
  LuSolveParams p;
  p.op = op;
  p.info = info.data();
  p.lu = matrices_of(lu);
  if (shared) p.lu.batch_stride = 0;
  p.pivots = pivots.data_ptr<int32_t>();
  p.pivot_stride = shared ? 0 : pivots.size(1);
  p.transpose = true;
  p.b = matrices_of(x);
  solve(x.dtype(), p);
  check_lapack_call(op, "getrs", info);
}
}  // namespace

namespace {
// inv(A) = solve(A, I), as in PyTorch (getri would round differently). A matrix with a NaN or
// an inf gets a NaN inverse without LAPACK (PyTorch's answer is NaN there too). A singular matrix
// is an Error, or with `info` its batch element's first zero pivot (the inverse then holds getrs'
// infs and NaNs, as linalg.inv_ex's).
Tensor inv_impl(const char* op, const Tensor& A, Tensor* info) {
  check_matrix(op, A, true);
  const auto factor = lapack_kernel<OpId::lu_factor>(op, A);
  const auto solve = lapack_kernel<OpId::lu_solve>(op, A);
  autograd::OpRecording rec(A);
  const bool batched = A.dim() > 2;
  const DimVector batch = batch_shape(A);
  const int64_t n = A.size(-1), count = batch_count(batch);
  std::vector<int32_t> reported = info_buffer(count);  // inv_ex's info
  Tensor out;
  if (n == 0 || count == 0) {
    out = empty(A.sizes(), A.options());
  } else {
    // PyTorch's way: Ember's row-major A read as column-major is Aᵀ, so getrf factors Aᵀ straight
    // from a plain copy and getrs('T') solves with it. Same pivots and bits as PyTorch, and the
    // same "diagonal element" in the singular-matrix error.
    const FiniteMask finite = finite_mask(A.reshape({count, n, n}));
    const Tensor lu = keep_finite(finite, packed_copy(A.reshape({count, n, n})));
    std::vector<int32_t> zero_pivot;
    const Tensor pivots = lu_factor_in_place(op, factor, lu, zero_pivot);
    for (int64_t b = 0; b < count; ++b) {
      if (!finite[b]) continue;  // NaN below, info 0
      const int32_t z = zero_pivot[static_cast<size_t>(b)];
      reported[static_cast<size_t>(b)] = z;
      EMBER_CHECK(info || z == 0,
                  "{}: {}The diagonal element {} is zero, the inversion could not be completed "
                  "because the input matrix is singular.",
                  op, batch_prefix(b, batched), z);
    }
    const Tensor x = identity_batch(count, n, A.options());  // I, then A⁻¹
    lu_solve_in_place(op, solve, lu, pivots, x);
    out = with_nan(finite, from_column_major(x, n, n)).reshape(A.sizes());
  }
  if (info) *info = info_tensor(reported, batch, A.device());
  if (rec) autograd::derivatives::linalg_inv(out, A);
  return out;
}
}  // namespace

Tensor inv(const Tensor& A) { return inv_impl("linalg.inv", A, nullptr); }

std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors) {
  Tensor info;
  Tensor out = inv_impl("linalg.inv_ex", A, check_errors ? nullptr : &info);
  if (check_errors)
    info = info_tensor(info_buffer(batch_count(batch_shape(A))), batch_shape(A), A.device());
  return {out, info};
}

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
  const char* op = "linalg.solve";
  check_matrix(op, A, true);
  check_input(op, B, "B");
  check_same_device({&A, &B}, op);
  EMBER_CHECK_TYPE(A.dtype() == B.dtype(),
                   "linalg.solve: expected A and B to have the same dtype, but got {} and {}",
                   A.dtype(), B.dtype());
  const auto factor = lapack_kernel<OpId::lu_factor>(op, A);
  const auto solve_kernel = lapack_kernel<OpId::lu_solve>(op, A);
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
  check_lapack_size(op, Bm, "B");
  const int64_t k = Bm.size(-1);
  const DimVector batch = broadcast_shape(batch_shape(A), Bm.sizes().slice(0, Bm.dim() - 2), op);
  const int64_t count = batch_count(batch);
  // Batch elements are named when A is batched (as PyTorch; a batched B alone is not).
  const bool batched = A.dim() > 2;
  Tensor X;
  {
    autograd::OpRecording rec(A, Bm);
    if (n == 0 || count == 0) {
      X = empty(with_matrix(batch, {n, k}), A.options());
    } else {
      // One factorisation serves every B when A is a single matrix; a batched A is factored per
      // entry (expanded first where it broadcasts). Row-major A read as column-major is Aᵀ.
      const bool shared = batch_count(batch_shape(A)) == 1;
      const Tensor a =
          shared ? packed_copy(A.reshape({1, n, n}))
                 : packed_copy(A.expand(with_matrix(batch, {n, n}))).reshape({count, n, n});
      const FiniteMask a_finite = finite_mask(a);
      const Tensor lu = keep_finite(a_finite, a);
      std::vector<int32_t> zero_pivot;
      const Tensor pivots = lu_factor_in_place(op, factor, lu, zero_pivot);
      // X starts as B, column-major ((count, k, n): B's transposes).
      Tensor x = packed_copy(Bm.expand(with_matrix(batch, {n, k})).mT()).reshape({count, k, n});
      const FiniteMask b_finite = finite_mask(x);
      x = keep_finite(b_finite, x);
      // A NaN or inf in A or in this B gives a NaN solution (PyTorch's is NaN or inf there).
      std::vector<uint8_t> ok(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        const int64_t ai = shared ? 0 : i;
        ok[static_cast<size_t>(i)] = a_finite[ai] && b_finite[i];
        if (!ok[static_cast<size_t>(i)]) continue;
        EMBER_CHECK(zero_pivot[static_cast<size_t>(ai)] == 0,
                    "linalg.solve: {}The solver failed because the input matrix is singular.",
                    batch_prefix(i, batched));
      }
      lu_solve_in_place(op, solve_kernel, lu, pivots, x);
      const FiniteMask finite = finite_mask_from(std::move(ok), A.device());
      X = with_nan(finite, from_column_major(x, n, k)).reshape(with_matrix(batch, {n, k}));
    }
    if (rec) autograd::derivatives::linalg_solve(X, A, Bm);
  }
  return vector_case ? X.squeeze(-1) : X;
}

namespace {
// For each entry of the (count, n, n) `A` that is not ok: the order of the first leading minor of
// the triangle potrf reads (lower, or upper) that holds a non-finite value, what potrf reports as
// not positive-definite for such input. Row r of the lower triangle completes the minor of order
// r + 1; column c of the upper one that of order c + 1.
std::vector<int32_t> first_nonfinite_minors(const Tensor& triangle, bool upper,
                                            const FiniteMask& finite) {
  const int64_t count = triangle.size(0), n = triangle.size(1);
  std::vector<int32_t> order = info_buffer(count);
  const Tensor bad = any(logical_not(isfinite(triangle)), upper ? 1 : 2).cpu();  // (count, n)
  const bool* p = bad.data_ptr<bool>();
  for (int64_t b = 0; b < count; ++b) {
    if (finite[b]) continue;
    for (int64_t r = 0; r < n; ++r)
      if (p[b * n + r]) {
        order[static_cast<size_t>(b)] = static_cast<int32_t>(r + 1);
        break;
      }
  }
  return order;
}

// A = L Lᵀ (or Uᵀ U) through potrf. A matrix that is not positive-definite is an Error, or with
// `info` the order of its first leading minor that is not (the factor then holds what potrf left,
// as linalg.cholesky_ex's). A non-finite value in the triangle read is reported the same way,
// without LAPACK: potrf would find it at that minor too (NaN fails its test).
Tensor cholesky_impl(const char* op, const Tensor& A, bool upper, Tensor* info) {
  check_matrix(op, A, true);
  const auto potrf = lapack_kernel<OpId::cholesky>(op, A);
  autograd::OpRecording rec(A);
  const bool batched = A.dim() > 2;
  const DimVector batch = batch_shape(A);
  const int64_t n = A.size(-1), count = batch_count(batch);
  std::vector<int32_t> orders = info_buffer(count);
  Tensor out;
  if (n == 0 || count == 0) {
    out = empty(A.sizes(), A.options());
  } else {
    // Reads A's lower triangle, or its upper one for `upper` (as PyTorch: A = UᵀU from the upper
    // triangle).
    const Tensor A3 = A.reshape({count, n, n});
    const FiniteMask finite = finite_mask(A3, upper ? 'U' : 'L');
    if (!finite.all())
      orders = first_nonfinite_minors(upper ? A3.triu() : A3.tril(), upper, finite);
    const Tensor a = keep_finite(finite, column_major(A3));
    std::vector<int32_t> potrf_info = info_buffer(count);
    CholeskyParams p;
    p.op = op;
    p.info = potrf_info.data();
    p.a = matrices_of(a);
    p.upper = upper;
    potrf(A.dtype(), p);
    check_lapack_call(op, "potrf", potrf_info);
    for (int64_t b = 0; b < count; ++b) {
      int32_t& order = orders[static_cast<size_t>(b)];
      if (finite[b]) order = potrf_info[static_cast<size_t>(b)];
      EMBER_CHECK(info || order == 0,
                  "{}: {}The factorization could not be completed because the input is not "
                  "positive-definite (the leading minor of order {} is not positive-definite).",
                  op, batch_prefix(b, batched), order);
    }
    out = with_nan(finite, from_column_major(a, n, n, upper ? 'U' : 'L')).reshape(A.sizes());
  }
  if (info) *info = info_tensor(orders, batch, A.device());
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
  if (check_errors)
    info = info_tensor(info_buffer(batch_count(batch_shape(A))), batch_shape(A), A.device());
  return {L, info};
}

namespace {
// det, or sign and log|det|, of each (count, n, n) matrix from its LU factors: det = sign(P) ·
// Π U_ii. On the CPU a host loop (the product in order, and no OpenMP region next to OpenBLAS,
// see linalg_common.h), elsewhere tensor ops. A NaN answer for the entries that are not finite.
struct Determinants {
  Tensor det, sign, logabs;  // (count) each; det, or sign and logabs
};

template <class T>
void determinants_on_host(const Tensor& lu, const Tensor& pivots, const FiniteMask& finite,
                          Determinants& r) {
  const int64_t count = lu.size(0), n = lu.size(1);
  const T* a = lu.data_ptr<T>();
  const int32_t* piv = pivots.data_ptr<int32_t>();
  T* det = r.det.defined() ? r.det.data_ptr<T>() : nullptr;
  T* sgn = r.sign.defined() ? r.sign.data_ptr<T>() : nullptr;
  T* logabs = r.logabs.defined() ? r.logabs.data_ptr<T>() : nullptr;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (int64_t b = 0; b < count; ++b) {
    if (!finite[b]) {
      if (det) det[b] = nan;
      if (sgn) sgn[b] = nan, logabs[b] = nan;
      continue;
    }
    T permutation = 1, s = 1, la = 0, product = 1;
    for (int64_t i = 0; i < n; ++i) {
      if (piv[b * n + i] != i + 1) permutation = -permutation;  // a row swap
      const T d = a[b * n * n + i * (n + 1)];
      product *= d;
      if (d < 0) s = -s;
      if (d == 0) s = 0;
      if (logabs) la += std::log(std::abs(d));
    }
    s *= permutation;
    if (sgn) sgn[b] = s, logabs[b] = s == 0 ? -std::numeric_limits<T>::infinity() : la;
    if (det) det[b] = permutation * product;
  }
}

// One LU factorisation per matrix (of a column-major copy of A, as PyTorch). A singular matrix is
// no error here (getrf's info > 0): its determinant is 0. A matrix with a NaN or an inf gets NaN,
// as PyTorch's LU gives, without LAPACK.
Determinants lu_determinants(const char* op, const Tensor& A, bool log_form) {
  const auto factor = lapack_kernel<OpId::lu_factor>(op, A);
  const int64_t n = A.size(-1), count = batch_count(batch_shape(A));
  const Tensor A3 = A.reshape({count, n, n});
  const FiniteMask finite = finite_mask(A3);
  const Tensor lu = keep_finite(finite, column_major(A3));
  std::vector<int32_t> info;
  const Tensor pivots = lu_factor_in_place(op, factor, lu, info);
  Determinants r;
  if (A.is_cpu()) {
    (log_form ? r.sign : r.det) = empty({count}, A.options());
    if (log_form) r.logabs = empty({count}, A.options());
    if (A.dtype() == kDouble)
      determinants_on_host<double>(lu, pivots, finite, r);
    else
      determinants_on_host<float>(lu, pivots, finite, r);
    return r;
  }
  const Tensor diagonal = lu.diagonal(0, 1, 2);
  // A pivot other than its own row (1-based) is a row swap.
  const Tensor swaps = sum(ne(pivots, arange(1, n + 1, pivots.options())).to(kLong), {1});
  const Tensor permutation = (1 - 2 * remainder(swaps, 2)).to(A.dtype());
  if (!log_form) {
    r.det = with_nan(finite, prod(diagonal, 1) * permutation);
    return r;
  }
  const Tensor s = prod(sign(diagonal), 1) * permutation;
  // A zero pivot: log|det| = -inf, whatever the other pivots hold.
  r.logabs = with_nan(finite, where(eq(s, 0), Scalar(-std::numeric_limits<double>::infinity()),
                                    sum(log(abs(diagonal)), {1})));
  r.sign = with_nan(finite, s);
  return r;
}
}  // namespace

Tensor det(const Tensor& A) {
  const char* op = "linalg.det";
  check_matrix(op, A, true);
  lapack_kernel<OpId::lu_factor>(op, A);
  autograd::OpRecording rec(A);
  const DimVector batch = batch_shape(A);
  Tensor out;
  if (A.size(-1) == 0 || batch_count(batch) == 0)
    out = ones(batch, A.options());
  else
    out = lu_determinants(op, A, false).det.reshape(batch);
  if (rec) autograd::derivatives::linalg_det(out, A);
  return out;
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  const char* op = "linalg.slogdet";
  check_matrix(op, A, true);
  lapack_kernel<OpId::lu_factor>(op, A);
  autograd::OpRecording rec(A);
  const DimVector batch = batch_shape(A);
  Tensor sgn, logabs;
  if (A.size(-1) == 0 || batch_count(batch) == 0) {
    sgn = ones(batch, A.options());
    logabs = zeros(batch, A.options());
  } else {
    const Determinants d = lu_determinants(op, A, true);
    sgn = d.sign.reshape(batch);
    logabs = d.logabs.reshape(batch);
  }
  if (rec) autograd::derivatives::linalg_slogdet(sgn, logabs, A);
  return {sgn, logabs};
}

}  // namespace ember::linalg
