// The CPU kernels of the LAPACK slots (kernels/common/lapack_params.h): OpenBLAS's LAPACK, one
// routine call per batch entry, float32 and float64. Registered by lapack_register.cpp.
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/lapack_params.h"

namespace ember::cpu {

void lapack_lu_factor(ScalarType dtype, const LuFactorParams& p);  // getrf
void lapack_lu_solve(ScalarType dtype, const LuSolveParams& p);    // getrs
void lapack_cholesky(ScalarType dtype, const CholeskyParams& p);   // potrf
void lapack_geqrf(ScalarType dtype, const QrFactorParams& p);      // geqrf
void lapack_orgqr(ScalarType dtype, const QrOrgqrParams& p);       // orgqr
void lapack_svd(ScalarType dtype, const SvdParams& p);             // gesdd
void lapack_eigh(ScalarType dtype, const EighParams& p);           // syevd

}  // namespace ember::cpu
