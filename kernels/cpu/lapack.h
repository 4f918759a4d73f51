// The LAPACK routines behind ember::linalg's CPU kernels (lapack_kernels.cpp), from OpenBLAS
// (which ships reference LAPACK, built with gfortran, and its own faster getrf/potrf):
// float/double overloads over the Fortran symbols, so each kernel is written once as a template.
// Debian's OpenBLAS has neither lapack.h nor LAPACKE, hence the declarations here. Fortran ABI:
// every argument by pointer, 32-bit integers (OpenBLAS's LP64 build), and one hidden length per
// CHARACTER argument, passed last.
//
// Matrices are column-major with a leading dimension, as LAPACK wants them (the ops lay them out
// so, kernels/common/lapack_params.h).
#pragma once

#include <cstddef>

namespace ember::lapack {

extern "C" {
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
             float* u, const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork,
             int* iwork, int* info, size_t jobz_len);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info, size_t jobz_len);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info,
             size_t jobz_len, size_t uplo_len);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info,
             size_t jobz_len, size_t uplo_len);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t trans_len);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t trans_len);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t uplo_len);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
}

// Overloads: the same name for float and double. Workspace sizes follow LAPACK (lwork = -1 asks
// for the optimal size in work[0]). Each returns LAPACK's info.
inline int geqrf(int m, int n, float* a, int lda, float* tau, float* work, int lwork) {
  int info = 0;
  sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  return info;
}
inline int geqrf(int m, int n, double* a, int lda, double* tau, double* work, int lwork) {
  int info = 0;
  dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  return info;
}
inline int orgqr(int m, int n, int k, float* a, int lda, const float* tau, float* work, int lwork) {
  int info = 0;
  sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  return info;
}
inline int orgqr(int m, int n, int k, double* a, int lda, const double* tau, double* work,
                 int lwork) {
  int info = 0;
  dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  return info;
}
inline int gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt,
                 int ldvt, float* work, int lwork, int* iwork) {
  int info = 0;
  sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  return info;
}
inline int gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu,
                 double* vt, int ldvt, double* work, int lwork, int* iwork) {
  int info = 0;
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  return info;
}
inline int syevd(char jobz, char uplo, int n, float* a, int lda, float* w, float* work, int lwork,
                 int* iwork, int liwork) {
  int info = 0;
  ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  return info;
}
inline int syevd(char jobz, char uplo, int n, double* a, int lda, double* w, double* work,
                 int lwork, int* iwork, int liwork) {
  int info = 0;
  dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  return info;
}
inline int getrf(int m, int n, float* a, int lda, int* ipiv) {
  int info = 0;
  sgetrf_(&m, &n, a, &lda, ipiv, &info);
  return info;
}
inline int getrf(int m, int n, double* a, int lda, int* ipiv) {
  int info = 0;
  dgetrf_(&m, &n, a, &lda, ipiv, &info);
  return info;
}
inline int getrs(char trans, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b,
                 int ldb) {
  int info = 0;
  sgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}
inline int getrs(char trans, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b,
                 int ldb) {
  int info = 0;
  dgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}
inline int potrf(char uplo, int n, float* a, int lda) {
  int info = 0;
  spotrf_(&uplo, &n, a, &lda, &info, 1);
  return info;
}
inline int potrf(char uplo, int n, double* a, int lda) {
  int info = 0;
  dpotrf_(&uplo, &n, a, &lda, &info, 1);
  return info;
}

}  // namespace ember::lapack
