// ember::linalg on the CPU through Eigen (float32/float64, batched over the leading dims): qr, svd,
// svdvals, eigh, eigvalsh, inv, solve, cholesky, det, slogdet, matrix_norm, vector_norm,
// matrix_exp. Eigen stays in this file; the public header only sees Tensors.
//
// Each matrix is copied into a column-major Eigen matrix, factored, and written back: the copy is
// O(n²) against the O(n³) factorisation. Batches run one matrix after another (an error in one
// batch element must be thrown from this thread, not from inside an OpenMP region).
#include <Eigen/Dense>
#include <unsupported/Eigen/MatrixFunctions>

#include <cmath>
#include <limits>
#include <string>

#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/op_common.h"

namespace ember::linalg {
namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using RowMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using ConstRowMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

void check_input(const char* op, const Tensor& A, const char* name = "A") {
  check_defined(A, op, name);
  EMBER_CHECK_AS(NotImplementedError, A.is_cpu(),
                 "{}: only CPU tensors are supported, got a tensor on {}. Hint: move it with "
                 ".cpu()",
                 op, A.device());
  EMBER_CHECK_TYPE(A.dtype() == kFloat || A.dtype() == kDouble,
                   "{}: expected a float32 or float64 tensor, but got {}. Hint: convert with "
                   ".to(ember::kFloat)",
                   op, A.dtype());
}

void check_matrix(const char* op, const Tensor& A, bool square, const char* name = "A") {
  check_input(op, A, name);
  EMBER_CHECK(A.dim() >= 2,
              "{}: {} must have at least 2 dimensions, but got a {}-D tensor of shape {}", op, name,
              A.dim(), A.sizes());
  if (square)
    EMBER_CHECK(A.size(-1) == A.size(-2),
                "{}: {} must be batches of square matrices, but they are {} by {} matrices", op,
                name, A.size(-2), A.size(-1));
}

DimVector batch_shape(const Tensor& A) { return DimVector(A.sizes().slice(0, A.dim() - 2)); }

int64_t batch_count(IntArrayRef batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

DimVector with_matrix(IntArrayRef batch, std::initializer_list<int64_t> tail) {
  DimVector s(batch);
  for (int64_t t : tail) s.push_back(t);
  return s;
}

// "(Batch element 3): " for batched inputs, as PyTorch prefixes its linalg errors.
std::string batch_prefix(int64_t b, bool batched) {
  return batched ? "(Batch element " + std::to_string(b) + "): " : "";
}

// Runs f(TypeTag) for float or double.
template <class F>
void visit_float(ScalarType t, F&& f) {
  if (t == kDouble)
    f(double{});
  else
    f(float{});
}

// Calls f(b, matrix b as an Eigen matrix) for each matrix of a contiguous (*, m, n) tensor.
template <class T, class F>
void for_each_matrix(const Tensor& Ac, F&& f) {
  const int64_t m = Ac.size(-2), n = Ac.size(-1), count = batch_count(batch_shape(Ac));
  const T* data = Ac.data_ptr<T>();
  for (int64_t b = 0; b < count; ++b) {
    Mat<T> a = ConstRowMap<T>(data + b * m * n, m, n);
    f(b, a);
  }
}

template <class T>
RowMap<T> out_matrix(const Tensor& out, int64_t b) {
  const int64_t r = out.size(-2), c = out.size(-1);
  return RowMap<T>(out.data_ptr<T>() + b * r * c, r, c);
}

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

// 1-based index of the first exactly-zero pivot of an LU factorisation, or 0 (LAPACK's info).
template <class T>
int64_t first_zero_pivot(const Eigen::PartialPivLU<Mat<T>>& lu) {
  const auto& f = lu.matrixLU();
  for (int64_t i = 0; i < f.rows(); ++i)
    if (f(i, i) == T(0)) return i + 1;
  return 0;
}

}  // namespace

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
    for_each_matrix<T>(Ac, [&](int64_t b, const Mat<T>& a) {
      Eigen::HouseholderQR<Mat<T>> f(a);
      Mat<T> r = f.matrixQR().topRows(r_rows).template triangularView<Eigen::Upper>();
      out_matrix<T>(R, b) = r;
      if (mode != "r") out_matrix<T>(Q, b) = f.householderQ() * Mat<T>::Identity(m, q_cols);
    });
  });
  if (rec) autograd::derivatives::linalg_qr(mode == "r" ? Tensor() : Q, R, A, mode);
  return {Q, R};
}

namespace {
// S (descending), and U/Vh when wanted, of every matrix in A.
void svd_impl(const char* op, const Tensor& A, bool want_uv, bool full, Tensor* U, Tensor* S,
              Tensor* Vh) {
  check_matrix(op, A, false);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  *S = empty(with_matrix(batch, {k}), A.options());
  if (want_uv) {
    *U = empty(with_matrix(batch, {m, full ? m : k}), A.options());
    *Vh = empty(with_matrix(batch, {full ? n : k, n}), A.options());
  }
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* s_out = S->data_ptr<T>();
    for_each_matrix<T>(Ac, [&](int64_t b, const Mat<T>& a) {
      if (k == 0) {  // nothing to decompose: any orthonormal bases do
        if (want_uv) {
          out_matrix<T>(*U, b).setIdentity();
          out_matrix<T>(*Vh, b).setIdentity();
        }
        return;
      }
      const unsigned opts = !want_uv ? 0u
                            : full   ? (Eigen::ComputeFullU | Eigen::ComputeFullV)
                                     : (Eigen::ComputeThinU | Eigen::ComputeThinV);
      Eigen::BDCSVD<Mat<T>> f(a, opts);
      for (int64_t i = 0; i < k; ++i) s_out[b * k + i] = f.singularValues()(i);
      if (want_uv) {
        out_matrix<T>(*U, b) = f.matrixU();
        out_matrix<T>(*Vh, b) = f.matrixV().transpose();
      }
    });
  });
}

void check_uplo(const char* op, std::string_view UPLO) {
  EMBER_CHECK_VALUE(UPLO == "L" || UPLO == "U", "{}: UPLO must be 'L' or 'U', but got '{}'", op,
                    UPLO);
}

void eigh_impl(const char* op, const Tensor& A, std::string_view UPLO, bool vectors, Tensor* L,
               Tensor* V) {
  check_matrix(op, A, true);
  check_uplo(op, UPLO);
  const int64_t n = A.size(-1);
  const DimVector batch = batch_shape(A);
  const bool batched = !batch.empty();
  *L = empty(with_matrix(batch, {n}), A.options());
  if (vectors) *V = empty(A.sizes(), A.options());
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* l_out = L->data_ptr<T>();
    for_each_matrix<T>(Ac, [&](int64_t b, const Mat<T>& a) {
      if (n == 0) return;
      // Eigen reads the lower triangle; the upper one of A is the lower one of Aᵀ.
      Eigen::SelfAdjointEigenSolver<Mat<T>> f(
          UPLO == "L" ? a : Mat<T>(a.transpose()),
          vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
      EMBER_CHECK(f.info() == Eigen::Success,
                  "{}: {}the algorithm failed to converge because the input matrix is "
                  "ill-conditioned or has too many repeated eigenvalues",
                  op, batch_prefix(b, batched));
      for (int64_t i = 0; i < n; ++i) l_out[b * n + i] = f.eigenvalues()(i);
      if (vectors) out_matrix<T>(*V, b) = f.eigenvectors();
    });
  });
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices) {
  autograd::OpRecording rec(A);
  Tensor U, S, Vh;
  svd_impl("linalg.svd", A, true, full_matrices, &U, &S, &Vh);
  if (rec) autograd::derivatives::linalg_svd(U, S, Vh, A, full_matrices);
  return {U, S, Vh};
}

// svdvals and eigvalsh need the singular vectors / eigenvectors for their gradient, so with
// autograd they run the full decomposition and record through it (as PyTorch does).
Tensor svdvals(const Tensor& A) {
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

Tensor inv(const Tensor& A) {
  check_matrix("linalg.inv", A, true);
  autograd::OpRecording rec(A);
  const bool batched = A.dim() > 2;
  Tensor out = empty(A.sizes(), A.options());
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix<T>(Ac, [&](int64_t b, const Mat<T>& a) {
      if (a.rows() == 0) return;
      Eigen::PartialPivLU<Mat<T>> lu(a);
      const int64_t zero = first_zero_pivot(lu);
      EMBER_CHECK(zero == 0,
                  "linalg.inv: {}The diagonal element {} is zero, the inversion could not be "
                  "completed because the input matrix is singular.",
                  batch_prefix(b, batched), zero);
      out_matrix<T>(out, b) = lu.inverse();
    });
  });
  if (rec) autograd::derivatives::linalg_inv(out, A);
  return out;
}

Tensor solve(const Tensor& A, const Tensor& B) {
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
  const int64_t k = Bm.size(-1);
  const DimVector batch =
      broadcast_shape(batch_shape(A), Bm.sizes().slice(0, Bm.dim() - 2), "linalg.solve");
  const bool batched = !batch.empty();
  Tensor X = empty(with_matrix(batch, {n, k}), A.options());
  {
    autograd::OpRecording rec(A, Bm);
    const Tensor Ac = A.contiguous(), Bc = Bm.contiguous();
    const std::vector<int64_t> a_off = broadcast_offsets(Ac, 2, batch);
    const std::vector<int64_t> b_off = broadcast_offsets(Bc, 2, batch);
    visit_float(A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (size_t i = 0; i < a_off.size(); ++i) {
        if (n == 0) break;
        Mat<T> a = ConstRowMap<T>(Ac.data_ptr<T>() + a_off[i], n, n);
        Mat<T> rhs = ConstRowMap<T>(Bc.data_ptr<T>() + b_off[i], n, k);
        Eigen::PartialPivLU<Mat<T>> lu(a);
        EMBER_CHECK(first_zero_pivot(lu) == 0,
                    "linalg.solve: {}The solver failed because the input matrix is singular.",
                    batch_prefix(static_cast<int64_t>(i), batched));
        out_matrix<T>(X, static_cast<int64_t>(i)) = lu.solve(rhs);
      }
    });
    if (rec) autograd::derivatives::linalg_solve(X, A, Bm);
  }
  return vector_case ? X.squeeze(-1) : X;
}

Tensor cholesky(const Tensor& A, bool upper) {
  check_matrix("linalg.cholesky", A, true);
  autograd::OpRecording rec(A);
  const bool batched = A.dim() > 2;
  Tensor out = empty(A.sizes(), A.options());
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix<T>(Ac, [&](int64_t b, const Mat<T>& a) {
      Eigen::LLT<Mat<T>> f(a);
      if (f.info() != Eigen::Success) {
        // Eigen does not say where it failed; an unblocked pass finds the order LAPACK reports.
        Mat<T> l = a.template triangularView<Eigen::Lower>();
        int64_t order = a.rows();
        for (int64_t j = 0; j < a.rows(); ++j) {
          T d = l(j, j) - l.row(j).head(j).squaredNorm();
          if (!(d > T(0))) {
            order = j + 1;
            break;
          }
          l(j, j) = std::sqrt(d);
          for (int64_t i = j + 1; i < a.rows(); ++i)
            l(i, j) = (l(i, j) - l.row(i).head(j).dot(l.row(j).head(j))) / l(j, j);
        }
        EMBER_FAIL(
            "linalg.cholesky: {}The factorization could not be completed because the input is "
            "not positive-definite (the leading minor of order {} is not positive-definite).",
            batch_prefix(b, batched), order);
      }
      Mat<T> l = f.matrixL();
      if (upper)
        out_matrix<T>(out, b) = l.transpose();
      else
        out_matrix<T>(out, b) = l;
    });
  });
  if (rec) autograd::derivatives::linalg_cholesky(out, A, upper);
  return out;
}

namespace {
// sign and log|det| from one LU factorisation: det = sign(P) · Π U_ii.
template <class T>
void lu_det(const Mat<T>& a, T* sign, T* logabs, T* det) {
  if (a.rows() == 0) {
    if (sign) *sign = 1, *logabs = 0;
    if (det) *det = 1;
    return;
  }
  Eigen::PartialPivLU<Mat<T>> lu(a);
  const auto& f = lu.matrixLU();
  T s = static_cast<T>(lu.permutationP().determinant()), la = 0;
  for (int64_t i = 0; i < f.rows(); ++i) {
    const T d = f(i, i);
    if (d < 0) s = -s;
    if (d == 0) s = 0;
    la += std::log(std::abs(d));
  }
  if (sign) *sign = s, *logabs = s == 0 ? -std::numeric_limits<T>::infinity() : la;
  if (det) *det = lu.determinant();
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
    for_each_matrix<T>(Ac,
                       [&](int64_t b, const Mat<T>& a) { lu_det<T>(a, nullptr, nullptr, o + b); });
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
    for_each_matrix<T>(Ac,
                       [&](int64_t b, const Mat<T>& a) { lu_det<T>(a, s + b, l + b, nullptr); });
  });
  if (rec) autograd::derivatives::linalg_slogdet(sign, logabs, A);
  return {sign, logabs};
}

Tensor matrix_exp(const Tensor& A) {
  check_matrix("linalg.matrix_exp", A, true);
  autograd::OpRecording rec(A);
  Tensor out = empty(A.sizes(), A.options());
  const Tensor Ac = A.contiguous();
  visit_float(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix<T>(Ac, [&](int64_t b, const Mat<T>& a) {
      if (a.rows() > 0) out_matrix<T>(out, b) = a.exp();
    });
  });
  if (rec) autograd::derivatives::linalg_matrix_exp(out, A);
  return out;
}

}  // namespace ember::linalg
