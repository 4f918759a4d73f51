// Average pooling through oneDNN's pooling primitives (float32, bfloat16), cached by geometry.
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/pool_params.h"

namespace ember::kernels {

/// Runs avg_pool (backward = false) or avg_pool_backward through oneDNN when it computes exactly
/// what PyTorch does for these parameters and oneDNN has a kernel for them; false otherwise (the
/// caller then runs its own loop). Writes nothing when it returns false.
bool onednn_avg_pool(ScalarType dtype, const PoolParams& p, bool backward);

}  // namespace ember::kernels
