// The CPU kernel of the fused RAdam update (kernels/common/optim_step_radam.h RadamStep):
// src/optim/radam.cpp's op chain, one pass per parameter, every parameter of a group in one call.
// A translation unit of its own: kernels compile one per file, with the kernels' flags.
// Before any include: no FMA contraction in this file (kernels/common/optim_math.h fuses
// exactly the products the op chain's kernels fuse, with std::fma).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "kernels/cpu/optim_kernels.h"

namespace ember::kernels {

void cpu_radam_update(ScalarType dtype, const RadamUpdateParams& p) {
  cpu_optim_update<RadamStep>(dtype, p);
}

}  // namespace ember::kernels
