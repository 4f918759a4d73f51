// Registers the CUDA kernels of the pool family (pooling: max, average, adaptive, LP, unpooling,
// fractional): kernels/cuda/pool_kernels.cu, for the dtypes the CPU registers.
#include "kernels/common/pool_params.h"
#include "src/dispatch/dispatch.h"

namespace ember {

namespace kernels::cuda {
void cuda_max_pool(ScalarType dtype, const PoolParams& p);
void cuda_avg_pool(ScalarType dtype, const PoolParams& p);
void cuda_avg_pool_backward(ScalarType dtype, const PoolParams& p);
void cuda_pool_scatter(ScalarType dtype, const PoolIndexParams& p);
void cuda_pool_gather(ScalarType dtype, const PoolIndexParams& p);
void cuda_fractional_max_pool(ScalarType dtype, const FractionalPoolParams& p);
}  // namespace kernels::cuda

namespace cuda_detail {

void register_cuda_pool_kernels() {
  using namespace kernels::cuda;
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::max_pool>(kCUDA, &cuda_max_pool, dtypes);
  register_kernel<OpId::avg_pool>(kCUDA, &cuda_avg_pool, dtypes);
  register_kernel<OpId::avg_pool_backward>(kCUDA, &cuda_avg_pool_backward, dtypes);
  register_kernel<OpId::pool_scatter>(kCUDA, &cuda_pool_scatter, dtypes);
  register_kernel<OpId::pool_gather>(kCUDA, &cuda_pool_gather, dtypes);
  register_kernel<OpId::fractional_max_pool>(kCUDA, &cuda_fractional_max_pool, dtypes);
}

}  // namespace cuda_detail
}  // namespace ember
