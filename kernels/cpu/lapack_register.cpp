// Registers the CPU kernels of the LAPACK routines of ember::linalg
// (kernels/cpu/lapack_kernels.cpp).
#include "kernels/cpu/lapack_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_lapack_kernels() {
  // LAPACK's real routines: float32 and float64 (the ops refuse other dtypes before dispatch).
  const DtypeMask dtypes = dtype_bit(kFloat) | dtype_bit(kDouble);
  register_kernel<OpId::lu_factor>(kCPU, &cpu::lapack_lu_factor, dtypes);
  register_kernel<OpId::lu_solve>(kCPU, &cpu::lapack_lu_solve, dtypes);
  register_kernel<OpId::cholesky>(kCPU, &cpu::lapack_cholesky, dtypes);
  register_kernel<OpId::geqrf>(kCPU, &cpu::lapack_geqrf, dtypes);
  register_kernel<OpId::orgqr>(kCPU, &cpu::lapack_orgqr, dtypes);
  register_kernel<OpId::svd>(kCPU, &cpu::lapack_svd, dtypes);
  register_kernel<OpId::eigh>(kCPU, &cpu::lapack_eigh, dtypes);
}

}  // namespace ember
