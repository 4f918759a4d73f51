// The one upsampling entry point behind the ATen-style functions of ember/ops/nn_resample.h and
// F::interpolate (which also reaches the area mode through it). Private to the library.
#pragma once

#include <array>
#include <optional>

#include "ember/core/tensor.h"
#include "kernels/common/resample_params.h"

namespace ember::detail {

/// The user's scale factor per spatial dim (nullopt: derive the mapping from the sizes).
using UpsampleScales = std::array<std::optional<double>, kResampleMaxDims>;

/// Interpolates input [N, C, *spatial] (`dims` spatial dims, checked) to output_size with `mode`;
/// `op` names the function in errors, `node` the autograd node. Differentiable to any order.
Tensor upsample(const Tensor& input, UpsampleParams::Mode mode, int dims, IntArrayRef output_size,
                const UpsampleScales& scales, bool align_corners, bool antialias, const char* op,
                const char* node);

}  // namespace ember::detail
