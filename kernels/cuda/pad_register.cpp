// Registers the CUDA kernels of the pad family (padding in every mode, pixel (un)shuffle,
// fold/unfold, channel shuffle): kernels/cuda/pad_kernels.cu. The dtypes are the CPU's
// (kernels/cpu/pad_register.cpp): the op level sums float16/bfloat16 gradients in float32, so the
// scatters (pad_nd_backward, col2im) only see float32 and float64.
#include "kernels/common/pad_params.h"
#include "src/dispatch/dispatch.h"

namespace ember::kernels::cuda {
void cuda_pad_nd(ScalarType dtype, const PadIndexParams& p);
void cuda_pad_nd_backward(ScalarType dtype, const PadIndexParams& p);
void cuda_im2col(ScalarType dtype, const Im2ColParams& p);
void cuda_col2im(ScalarType dtype, const Im2ColParams& p);
}  // namespace ember::kernels::cuda

namespace ember::cuda_detail {

void register_cuda_pad_kernels() {
  using namespace kernels::cuda;
  const DtypeMask wide = dtype_bit(kFloat) | dtype_bit(kDouble);
  const DtypeMask floats = wide | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  // The gather moves bytes, so every dtype pads (integer and bool inputs included).
  register_kernel<OpId::pad_nd>(kCUDA, &cuda_pad_nd, kAllDtypes);
  register_kernel<OpId::pad_nd_backward>(kCUDA, &cuda_pad_nd_backward, wide);
  register_kernel<OpId::im2col>(kCUDA, &cuda_im2col, floats);
  register_kernel<OpId::col2im>(kCUDA, &cuda_col2im, wide);
}

}  // namespace ember::cuda_detail
