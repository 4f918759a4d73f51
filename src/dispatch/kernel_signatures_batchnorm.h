// Kernel slot types of the batchnorm family (batch, instance and group normalisation, local
// response normalisation); included by kernel_signatures.h.
#pragma once

#include "ember/core/scalar_type.h"

namespace ember {

struct BatchNormStatsParams;   // kernels/common/batchnorm_params.h
struct BatchNormReduceParams;  // kernels/common/batchnorm_params.h
struct BatchNormApplyParams;   // kernels/common/batchnorm_params.h

namespace kernel_kind {
/// batch_norm_stats: per-slot mean and biased variance.
using BatchNormStats = void (*)(ScalarType dtype, const BatchNormStatsParams& p);
/// batch_norm_reduce: per-slot Σ grad and Σ grad·(x - center), for the backward.
using BatchNormReduce = void (*)(ScalarType dtype, const BatchNormReduceParams& p);
/// batch_norm_apply: out = a·ka + b·kb + k0 with per-slot coefficients (forward and backward).
using BatchNormApply = void (*)(ScalarType dtype, const BatchNormApplyParams& p);
}  // namespace kernel_kind

}  // namespace ember
