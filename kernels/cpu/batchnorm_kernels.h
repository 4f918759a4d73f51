// CPU kernels of the batchnorm family's slots (kernels/common/batchnorm_params.h).
#pragma once

#include "ember/core/scalar_type.h"
#include "kernels/common/batchnorm_params.h"

namespace ember::kernels {

/// batch_norm_stats: per-slot mean and biased variance (two-pass, double accumulators).
void cpu_batch_norm_stats(ScalarType dtype, const BatchNormStatsParams& p);
/// batch_norm_reduce: per-slot Σ grad and Σ grad·(x - center).
void cpu_batch_norm_reduce(ScalarType dtype, const BatchNormReduceParams& p);
/// batch_norm_apply: out = a·ka + b·kb + k0 with per-slot coefficients.
void cpu_batch_norm_apply(ScalarType dtype, const BatchNormApplyParams& p);

}  // namespace ember::kernels
