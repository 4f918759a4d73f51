// Functional dropout (LibTorch's torch/nn/functional/dropout.h):
//   Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.1).training(is_training()));
//   Tensor z = F::dropout2d(feature_maps, F::Dropout2dFuncOptions().p(0.2));
// In training, each element (each channel for the feature forms) is zeroed with probability p
// and the survivors are scaled by 1/(1-p); with training=false or p=0 the input itself is
// returned. Random draws come from ember's default generator (ember::manual_seed).
// Ranks: dropout1d/2d/3d accept exactly the batched and unbatched shapes below and throw for any
// other rank (Python warns and carries on; LibTorch unsqueezes silently). A 3-D input to
// dropout2d is an unbatched [C, H, W], as in LibTorch (Python 1.13 reads it as [N, C, L]).
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn::functional {

/// Elementwise dropout of any input.
EMBER_API Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {});
/// Channel dropout of [N, C, L] or unbatched [C, L] inputs.
EMBER_API Tensor dropout1d(const Tensor& input, const Dropout1dFuncOptions& options = {});
/// Channel dropout of [N, C, H, W] or unbatched [C, H, W] inputs.
EMBER_API Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options = {});
/// Channel dropout of [N, C, D, H, W] or unbatched [C, D, H, W] inputs.
EMBER_API Tensor dropout3d(const Tensor& input, const Dropout3dFuncOptions& options = {});
/// Alpha dropout (for SELU networks): dropped elements take SELU's negative saturation value and
/// an affine map keeps zero mean and unit variance.
EMBER_API Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& options = {});
/// Alpha dropout of whole channels of an [N, C, *] input.
EMBER_API Tensor feature_alpha_dropout(const Tensor& input,
                                       const FeatureAlphaDropoutFuncOptions& options = {});

namespace detail {
// Positional forms (as LibTorch's F::detail), for modules that keep their options.
EMBER_API Tensor dropout(const Tensor& input, double p, bool training, bool inplace);
EMBER_API Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace);
EMBER_API Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace);
EMBER_API Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace);
EMBER_API Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace);
EMBER_API Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace);
/// Channel dropout of any [N, C, *] input (at least 2 dims): ATen's feature_dropout.
EMBER_API Tensor feature_dropout(const Tensor& input, double p, bool training, bool inplace);
}  // namespace detail

}  // namespace ember::nn::functional
