// ATen's flat spellings of the linalg functions (torch::linalg_inv(A), at::linalg_svd(A, false),
// ...), which LibTorch programs use beside torch::linalg::inv. Each is the ember::linalg function
// of the same name, with ATen's argument list and defaults.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "ember/ops/linalg.h"

namespace ember {

inline Tensor linalg_inv(const Tensor& A) { return linalg::inv(A); }
inline std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false) {
  return linalg::inv_ex(A, check_errors);
}
inline Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true) {
  return linalg::solve(A, B, left);
}
inline Tensor linalg_cholesky(const Tensor& A, bool upper = false) {
  return linalg::cholesky(A, upper);
}
inline std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false,
                                                     bool check_errors = false) {
  return linalg::cholesky_ex(A, upper, check_errors);
}
inline Tensor linalg_det(const Tensor& A) { return linalg::det(A); }
inline std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) { return linalg::slogdet(A); }
inline std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced") {
  return linalg::qr(A, mode);
}
inline std::tuple<Tensor, Tensor, Tensor> linalg_svd(
    const Tensor& A, bool full_matrices = true,
    std::optional<std::string_view> driver = std::nullopt) {
  return linalg::svd(A, full_matrices, driver);
}
inline Tensor linalg_svdvals(const Tensor& A,
                             std::optional<std::string_view> driver = std::nullopt) {
  return linalg::svdvals(A, driver);
}
inline std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO = "L") {
  return linalg::eigh(A, UPLO);
}
inline Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO = "L") {
  return linalg::eigvalsh(A, UPLO);
}
inline Tensor linalg_cross(const Tensor& input, const Tensor& other, int64_t dim = -1) {
  return linalg::cross(input, other, dim);
}
inline Tensor linalg_pinv(const Tensor& A, double rcond, bool hermitian = false) {
  return linalg::pinv(A, rcond, hermitian);
}
inline Tensor linalg_pinv(const Tensor& A, std::optional<double> atol = std::nullopt,
                          std::optional<double> rtol = std::nullopt, bool hermitian = false) {
  return linalg::pinv(A, atol, rtol, hermitian);
}
inline Tensor linalg_matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                                 std::optional<double> rtol = std::nullopt,
                                 bool hermitian = false) {
  return linalg::matrix_rank(A, atol, rtol, hermitian);
}
inline Tensor linalg_matrix_rank(const Tensor& A, double tol, bool hermitian = false) {
  return linalg::matrix_rank(A, tol, hermitian);
}
inline Tensor linalg_matrix_exp(const Tensor& A) { return linalg::matrix_exp(A); }

// The norms keep linalg's overload set: string literals are string ords and integer literals
// numbers (see include/ember/ops/linalg.h).
inline Tensor linalg_vector_norm(const Tensor& x, const Scalar& ord = 2,
                                 OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
                                 std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::vector_norm(x, ord, dim, keepdim, dtype);
}
inline Tensor linalg_matrix_norm(const Tensor& A, std::string_view ord = "fro",
                                 IntArrayRef dim = {-2, -1}, bool keepdim = false,
                                 std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::matrix_norm(A, ord, dim, keepdim, dtype);
}
inline Tensor linalg_matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1},
                                 bool keepdim = false,
                                 std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::matrix_norm(A, ord, dim, keepdim, dtype);
}
template <size_t N>
Tensor linalg_matrix_norm(const Tensor& A, const char (&ord)[N], IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::matrix_norm(A, std::string_view(ord), dim, keepdim, dtype);
}
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
Tensor linalg_matrix_norm(const Tensor& A, I ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::matrix_norm(A, Scalar(static_cast<int64_t>(ord)), dim, keepdim, dtype);
}
inline Tensor linalg_norm(const Tensor& x, const std::optional<Scalar>& ord = std::nullopt,
                          OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::norm(x, ord, dim, keepdim, dtype);
}
inline Tensor linalg_norm(const Tensor& x, std::string_view ord,
                          OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::norm(x, ord, dim, keepdim, dtype);
}
template <size_t N>
Tensor linalg_norm(const Tensor& x, const char (&ord)[N], OptionalIntArrayRef dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::norm(x, std::string_view(ord), dim, keepdim, dtype);
}
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
Tensor linalg_norm(const Tensor& x, I ord, OptionalIntArrayRef dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg::norm(x, std::optional<Scalar>(Scalar(static_cast<int64_t>(ord))), dim, keepdim,
                      dtype);
}

}  // namespace ember
