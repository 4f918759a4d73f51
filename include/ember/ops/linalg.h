// Matrix products (BLAS-backed) and ember::linalg (LAPACK-backed, CPU float32/float64).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "ember/core/optional_array_ref.h"
#include "ember/core/tensor.h"

namespace ember {

EMBER_API Tensor mm(const Tensor& self, const Tensor& mat2);
EMBER_API const Tensor& mm_out(const Tensor& out, const Tensor& self, const Tensor& mat2);
EMBER_API Tensor bmm(const Tensor& self, const Tensor& mat2);
/// numpy-style matmul: 1-D dot, 2-D mm, batched with broadcasting of the batch dims.
EMBER_API Tensor matmul(const Tensor& self, const Tensor& other);
EMBER_API Tensor mv(const Tensor& self, const Tensor& vec);
EMBER_API Tensor dot(const Tensor& self, const Tensor& other);
EMBER_API Tensor outer(const Tensor& self, const Tensor& vec2);
/// beta·self + alpha·(mat1 @ mat2)
EMBER_API Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                       const Scalar& beta = 1, const Scalar& alpha = 1);
EMBER_API Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                         const Scalar& beta = 1, const Scalar& alpha = 1);
// out= forms with the rules of reduction.h's (out has the result's shape or no elements; its
// dtype must be the inputs'). mm_out, older, resizes any out.
EMBER_API const Tensor& matmul_out(const Tensor& out, const Tensor& self, const Tensor& other);
EMBER_API const Tensor& bmm_out(const Tensor& out, const Tensor& self, const Tensor& mat2);
EMBER_API const Tensor& addmm_out(const Tensor& out, const Tensor& self, const Tensor& mat1,
                                  const Tensor& mat2, const Scalar& beta = 1,
                                  const Scalar& alpha = 1);
/// Einstein summation, e.g. einsum("bij,bjk->bik", {a, b}).
EMBER_API Tensor einsum(std::string_view equation, TensorList operands);

namespace linalg {
// LibTorch's torch::linalg:: with its full argument lists (and ATen's defaults). A NaN or an inf
// in a matrix never reaches LAPACK: svd, svdvals and eigh throw (as PyTorch), solve, inv, det,
// slogdet and qr answer NaN for that matrix, cholesky reports it as not positive-definite.

/// Q, R with A = Q·R; mode "reduced" (default), "complete" or "r" (Q empty).
EMBER_API std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced");
/// U, S, Vh with A = U·diag(S)·Vh. `driver` chooses a cuSOLVER routine in PyTorch, for CUDA
/// inputs only: here it must be nullopt (Ember's linalg runs on the CPU), else an Error.
EMBER_API std::tuple<Tensor, Tensor, Tensor> svd(
    const Tensor& A, bool full_matrices = true,
    std::optional<std::string_view> driver = std::nullopt);
/// The singular values, descending; `driver` as for svd.
EMBER_API Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver = std::nullopt);
/// Eigenvalues (ascending) and eigenvectors of a symmetric matrix, from its UPLO triangle.
EMBER_API std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO = "L");
EMBER_API Tensor eigvalsh(const Tensor& A, std::string_view UPLO = "L");
/// A⁻¹; a singular matrix is an Error.
EMBER_API Tensor inv(const Tensor& A);
/// (A⁻¹, info): info (int32, one per matrix) is 0, or the first zero pivot of a singular matrix,
/// which throws instead when check_errors.
EMBER_API std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors = false);
/// X with A·X = B (left) or X·A = B (left = false). B is a (batch of) matrices, or of vectors
/// when left; batch dims broadcast.
EMBER_API Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
/// L with A = L·Lᵀ (upper: U with A = Uᵀ·U), from that triangle of A.
EMBER_API Tensor cholesky(const Tensor& A, bool upper = false);
/// (L, info): info (int32) is 0, or the order of the first leading minor that is not
/// positive-definite, which throws instead when check_errors.
EMBER_API std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper = false,
                                                 bool check_errors = false);
EMBER_API Tensor det(const Tensor& A);
/// sign and log|det|.
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
/// Matrix norms over the two dims `dim`: ord "fro" or "nuc", or a number (1, -1, 2, -2, inf,
/// -inf). With dtype, A is cast to it first.
EMBER_API Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro",
                             IntArrayRef dim = {-2, -1}, bool keepdim = false,
                             std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1},
                             bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
/// A string literal is a string ord (without this, "nuc" would also convert to Scalar via bool);
/// a char array, not a const char*, so that a literal 0 is a number, not a null pointer.
template <size_t N>
Tensor matrix_norm(const Tensor& A, const char (&ord)[N], IntArrayRef dim = {-2, -1},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return matrix_norm(A, std::string_view(ord), dim, keepdim, dtype);
}
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
Tensor matrix_norm(const Tensor& A, I ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return matrix_norm(A, Scalar(static_cast<int64_t>(ord)), dim, keepdim, dtype);
}
/// (Σ|x|^ord)^(1/ord) over `dim` (nullopt or empty: every dim); ord may be inf, -inf or 0. With
/// dtype, x is cast to it first.
EMBER_API Tensor vector_norm(const Tensor& x, const Scalar& ord = 2,
                             OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
                             std::optional<ScalarType> dtype = std::nullopt);
/// vector_norm or matrix_norm, as `dim` (or, without dim, x's rank) says: no ord is the 2-norm of
/// x flattened (over `dim` when given); a numeric ord without dim needs a 1-D or 2-D x; a string
/// ord is a matrix norm.
EMBER_API Tensor norm(const Tensor& x, const std::optional<Scalar>& ord = std::nullopt,
                      OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
                      std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor norm(const Tensor& x, std::string_view ord, OptionalIntArrayRef dim = std::nullopt,
                      bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
template <size_t N>
Tensor norm(const Tensor& x, const char (&ord)[N], OptionalIntArrayRef dim = std::nullopt,
            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return norm(x, std::string_view(ord), dim, keepdim, dtype);
}
/// An integer ord (norm(v, 0) counts non-zeros; a literal 0 would otherwise be ambiguous).
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
Tensor norm(const Tensor& x, I ord, OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt) {
  return norm(x, std::optional<Scalar>(Scalar(static_cast<int64_t>(ord))), dim, keepdim, dtype);
}
/// The cross product of 3-vectors along dim (size 3); the inputs broadcast.
EMBER_API Tensor cross(const Tensor& input, const Tensor& other, int64_t dim = -1);
/// Moore-Penrose pseudo-inverse from the SVD (eigh when hermitian), dropping singular values at
/// or below rcond·σ_max. rcond defaults to 1e-15, as LibTorch's torch::linalg::pinv.
EMBER_API Tensor pinv(const Tensor& A, double rcond = 1e-15, bool hermitian = false);
/// pinv dropping singular values at or below max(atol, rtol·σ_max), with PyTorch's newer rules:
/// rtol = eps·max(m, n) when neither is given (nullopt), 0 when only atol is.
EMBER_API Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                      bool hermitian = false);
/// The number of singular values above max(atol, rtol·σ_max) (int64), tolerances as pinv's
/// atol/rtol form (ATen's defaults: both nullopt).
EMBER_API Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                             std::optional<double> rtol = std::nullopt, bool hermitian = false);
/// matrix_rank with atol = tol and rtol = 0.
EMBER_API Tensor matrix_rank(const Tensor& A, double tol, bool hermitian = false);
EMBER_API Tensor matrix_exp(const Tensor& A);
}  // namespace linalg

}  // namespace ember
