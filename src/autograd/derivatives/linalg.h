// Autograd for the linear algebra ops: the matrix products (src/ops/linalg.cpp), ember::linalg's
// solvers and decompositions (src/ops/linalg_decomp.cpp) and norms (src/ops/linalg_norm.cpp).
// Formulas follow PyTorch's derivatives.yaml / FunctionsManual.cpp (real case) and are written
// with public differentiable ops, so create_graph gives higher derivatives. einsum, svdvals and
// eigvalsh have no formula of their own: they record through the ops they are made of.
#pragma once

#include <string_view>

#include "src/autograd/record.h"

namespace ember::autograd::derivatives {

// ---- Products (linalg.cpp) ----
void mm(const Tensor& result, const Tensor& self, const Tensor& mat2);
void bmm(const Tensor& result, const Tensor& self, const Tensor& mat2);
void addmm(const Tensor& result, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
           const Scalar& beta, const Scalar& alpha);
void baddbmm(const Tensor& result, const Tensor& self, const Tensor& batch1, const Tensor& batch2,
             const Scalar& beta, const Scalar& alpha);
void dot(const Tensor& result, const Tensor& self, const Tensor& other);
void mv(const Tensor& result, const Tensor& self, const Tensor& vec);
void outer(const Tensor& result, const Tensor& self, const Tensor& vec2);
/// matmul's batched path (its 1-D/2-D cases are dot, mv and mm, which record themselves).
void matmul(const Tensor& result, const Tensor& self, const Tensor& other);

// ---- Solvers and determinants (linalg_solve.cpp) ----
void linalg_inv(const Tensor& result, const Tensor& A);
/// X = A⁻¹B for (batches of) matrices B (linalg::solve unsqueezes a vector B first).
void linalg_solve(const Tensor& X, const Tensor& A, const Tensor& B);
void linalg_cholesky(const Tensor& L, const Tensor& A, bool upper);
void linalg_det(const Tensor& result, const Tensor& A);
void linalg_slogdet(const Tensor& sign, const Tensor& logabsdet, const Tensor& A);
void linalg_matrix_exp(const Tensor& result, const Tensor& A);

// ---- Decompositions and norms (linalg_decomp.cpp) ----
/// Q is undefined for mode "r" (whose backward then throws, as PyTorch's does).
void linalg_qr(const Tensor& Q, const Tensor& R, const Tensor& A, std::string_view mode);
void linalg_svd(const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& A,
                bool full_matrices);
void linalg_eigh(const Tensor& L, const Tensor& V, const Tensor& A, std::string_view UPLO);
/// `dims`: the reduced dims, wrapped (all dims when x is reduced entirely).
void linalg_vector_norm(const Tensor& result, const Tensor& x, double ord, IntArrayRef dims,
                        bool keepdim);
/// `ord` is "fro" or "nuc", or empty with the numeric order in `num`; `dims` wrapped.
void linalg_matrix_norm(const Tensor& result, const Tensor& A, std::string_view ord, double num,
                        IntArrayRef dims, bool keepdim);

}  // namespace ember::autograd::derivatives
