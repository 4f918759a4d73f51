// F::pad (LibTorch's torch/nn/functional/padding.h): padding in every mode.
//   namespace F = ember::nn::functional;
//   Tensor y = F::pad(x, F::PadFuncOptions({1, 1, 2, 2}).mode(ember::kReflect));
// kConstant pads any rank (negative pads crop); kReflect, kReplicate and kCircular pad the last 1,
// 2 or 3 dims of a batched or unbatched input (pad of 2 values for 2-D/3-D inputs, 4 for 3-D/4-D,
// 6 for 4-D/5-D). All modes are differentiable (ember/ops/nn_pad.h has the ops behind them).
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/padding.h"

namespace ember::nn::functional {

namespace detail {
/// F::pad with its options spelled out. As LibTorch, value 0 counts as "no value", so the
/// non-constant modes accept it.
EMBER_API Tensor pad(const Tensor& input, IntArrayRef pad, PadFuncOptions::mode_t mode,
                     double value);
}  // namespace detail

/// Pads `input` by options.pad() in options.mode() (filling with options.value() in kConstant).
EMBER_API Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace ember::nn::functional
