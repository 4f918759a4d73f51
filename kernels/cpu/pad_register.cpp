// Registers the CPU kernels of the pad family (padding in every mode, pixel (un)shuffle,
// fold/unfold, channel shuffle): kernels/cpu/pad_kernels.cpp.
#include "kernels/cpu/pad_kernels.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_pad_kernels() {
  const DtypeMask wide = dtype_bit(kFloat) | dtype_bit(kDouble);
  const DtypeMask floats = wide | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  // The gather moves bytes, so every dtype pads (integer and bool inputs included).
  register_kernel<OpId::pad_nd>(kCPU, &kernels::cpu_pad_nd, kAllDtypes);
  register_kernel<OpId::pad_nd_backward>(kCPU, &kernels::cpu_pad_nd_backward, wide);
  register_kernel<OpId::im2col>(kCPU, &kernels::cpu_im2col, floats);
  register_kernel<OpId::col2im>(kCPU, &kernels::cpu_col2im, wide);
}

}  // namespace ember
