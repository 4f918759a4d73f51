// float/double overloads over cuSOLVER's dense routines (cusolverDn<S|D>...), so each CUDA LAPACK
// kernel (lapack_kernels.cpp) is written once as a template, and the names of the routines for
// its errors. Column-major matrices with a leading dimension, 32-bit sizes, info in device memory.
#pragma once

#include <cusolverDn.h>

#include <type_traits>

namespace ember::cuda_detail::cusolver {

/// "cusolverDnSgetrf" / "cusolverDnDgetrf" for routine "getrf", as the errors name them.
template <class T>
constexpr char type_letter() {
  return std::is_same_v<T, double> ? 'D' : 'S';
}

// ---- getrf / getrs ----
inline cusolverStatus_t getrf_bufferSize(cusolverDnHandle_t h, int m, int n, float* a, int lda,
                                         int* lwork) {
  return cusolverDnSgetrf_bufferSize(h, m, n, a, lda, lwork);
}
inline cusolverStatus_t getrf_bufferSize(cusolverDnHandle_t h, int m, int n, double* a, int lda,
                                         int* lwork) {
  return cusolverDnDgetrf_bufferSize(h, m, n, a, lda, lwork);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, float* a, int lda, float* work,
                              int* ipiv, int* info) {
  return cusolverDnSgetrf(h, m, n, a, lda, work, ipiv, info);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, double* a, int lda, double* work,
                              int* ipiv, int* info) {
  return cusolverDnDgetrf(h, m, n, a, lda, work, ipiv, info);
}
inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n, int nrhs,
                              const float* a, int lda, const int* ipiv, float* b, int ldb,
                              int* info) {
  return cusolverDnSgetrs(h, trans, n, nrhs, a, lda, ipiv, b, ldb, info);
}
inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n, int nrhs,
                              const double* a, int lda, const int* ipiv, double* b, int ldb,
                              int* info) {
  return cusolverDnDgetrs(h, trans, n, nrhs, a, lda, ipiv, b, ldb, info);
}

// ---- potrf ----
inline cusolverStatus_t potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,
                                         float* a, int lda, int* lwork) {
  return cusolverDnSpotrf_bufferSize(h, uplo, n, a, lda, lwork);
}
inline cusolverStatus_t potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,
                                         double* a, int lda, int* lwork) {
  return cusolverDnDpotrf_bufferSize(h, uplo, n, a, lda, lwork);
}
inline cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, float* a, int lda,
                              float* work, int lwork, int* info) {
  return cusolverDnSpotrf(h, uplo, n, a, lda, work, lwork, info);
}
inline cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, double* a,
                              int lda, double* work, int lwork, int* info) {
  return cusolverDnDpotrf(h, uplo, n, a, lda, work, lwork, info);
}

// ---- geqrf / orgqr ----
inline cusolverStatus_t geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, float* a, int lda,
                                         int* lwork) {
  return cusolverDnSgeqrf_bufferSize(h, m, n, a, lda, lwork);
}
inline cusolverStatus_t geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, double* a, int lda,
                                         int* lwork) {
  return cusolverDnDgeqrf_bufferSize(h, m, n, a, lda, lwork);
}
inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float* a, int lda, float* tau,
                              float* work, int lwork, int* info) {
  return cusolverDnSgeqrf(h, m, n, a, lda, tau, work, lwork, info);
}
inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double* a, int lda, double* tau,
                              double* work, int lwork, int* info) {
  return cusolverDnDgeqrf(h, m, n, a, lda, tau, work, lwork, info);
}
inline cusolverStatus_t orgqr_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const float* a,
                                         int lda, const float* tau, int* lwork) {
  return cusolverDnSorgqr_bufferSize(h, m, n, k, a, lda, tau, lwork);
}
inline cusolverStatus_t orgqr_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const double* a,
                                         int lda, const double* tau, int* lwork) {
  return cusolverDnDorgqr_bufferSize(h, m, n, k, a, lda, tau, lwork);
}
inline cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, float* a, int lda,
                              const float* tau, float* work, int lwork, int* info) {
  return cusolverDnSorgqr(h, m, n, k, a, lda, tau, work, lwork, info);
}
inline cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, double* a, int lda,
                              const double* tau, double* work, int lwork, int* info) {
  return cusolverDnDorgqr(h, m, n, k, a, lda, tau, work, lwork, info);
}

// ---- gesvd (m >= n only) ----
template <class T>
cusolverStatus_t gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int* lwork) {
  if constexpr (std::is_same_v<T, double>)
    return cusolverDnDgesvd_bufferSize(h, m, n, lwork);
  else
    return cusolverDnSgesvd_bufferSize(h, m, n, lwork);
}
inline cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt, int m,
                              int n, float* a, int lda, float* s, float* u, int ldu, float* vt,
                              int ldvt, float* work, int lwork, float* rwork, int* info) {
  return cusolverDnSgesvd(h, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork,
                          info);
}
inline cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt, int m,
                              int n, double* a, int lda, double* s, double* u, int ldu, double* vt,
                              int ldvt, double* work, int lwork, double* rwork, int* info) {
  return cusolverDnDgesvd(h, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork,
                          info);
}

// ---- syevd ----
inline cusolverStatus_t syevd_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,
                                         cublasFillMode_t uplo, int n, const float* a, int lda,
                                         const float* w, int* lwork) {
  return cusolverDnSsyevd_bufferSize(h, jobz, uplo, n, a, lda, w, lwork);
}
inline cusolverStatus_t syevd_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,
                                         cublasFillMode_t uplo, int n, const double* a, int lda,
                                         const double* w, int* lwork) {
  return cusolverDnDsyevd_bufferSize(h, jobz, uplo, n, a, lda, w, lwork);
}
inline cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                              int n, float* a, int lda, float* w, float* work, int lwork,
                              int* info) {
  return cusolverDnSsyevd(h, jobz, uplo, n, a, lda, w, work, lwork, info);
}
inline cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                              int n, double* a, int lda, double* w, double* work, int lwork,
                              int* info) {
  return cusolverDnDsyevd(h, jobz, uplo, n, a, lda, w, work, lwork, info);
}

}  // namespace ember::cuda_detail::cusolver
