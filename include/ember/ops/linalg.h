// Matrix products (BLAS-backed) and ember::linalg (LAPACK-backed, CPU float32/float64).
#pragma once

#include <string>
#include <tuple>

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
/// Einstein summation, e.g. einsum("bij,bjk->bik", {a, b}).
EMBER_API Tensor einsum(std::string_view equation, TensorList operands);

namespace linalg {
/// Reduced QR by default; mode "reduced", "complete" or "r".
EMBER_API std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced");
/// U, S, Vh with A = U·diag(S)·Vh.
EMBER_API std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true);
EMBER_API Tensor svdvals(const Tensor& A);
/// Eigenvalues (ascending) and eigenvectors of a symmetric matrix, from its lower triangle.
EMBER_API std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO = "L");
EMBER_API Tensor eigvalsh(const Tensor& A, std::string_view UPLO = "L");
EMBER_API Tensor inv(const Tensor& A);
EMBER_API Tensor solve(const Tensor& A, const Tensor& B);
EMBER_API Tensor cholesky(const Tensor& A, bool upper = false);
EMBER_API Tensor det(const Tensor& A);
/// sign and log|det|.
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
/// ord: "fro" or "nuc", or a number (1, -1, 2, -2, inf, -inf) through the other overload.
EMBER_API Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro",
                             IntArrayRef dim = {-2, -1}, bool keepdim = false);
EMBER_API Tensor matrix_norm(const Tensor& A, double ord, IntArrayRef dim = {-2, -1},
                             bool keepdim = false);
EMBER_API Tensor vector_norm(const Tensor& x, double ord = 2, IntArrayRef dim = {},
                             bool keepdim = false);
EMBER_API Tensor matrix_exp(const Tensor& A);
}  // namespace linalg

}  // namespace ember
