// F::fold and F::unfold (LibTorch's torch/nn/functional/fold.h): sliding blocks of images as
// columns (im2col) and back (col2im, overlapping blocks add up).
//   Tensor cols = F::unfold(x, F::UnfoldFuncOptions({3, 3}).padding(1));  // [N, C·9, H·W]
//   Tensor img = F::fold(cols, F::FoldFuncOptions({H, W}, {3, 3}).padding(1));
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/fold.h"

namespace ember::nn::functional {

/// Columns [N, C·kh·kw, L] (or unbatched [C·kh·kw, L]) summed into [N, C, H, W] (or [C, H, W])
/// with (H, W) = options.output_size().
EMBER_API Tensor fold(const Tensor& input, const FoldFuncOptions& options);
/// Images [N, C, H, W] (or unbatched [C, H, W]) as columns [N, C·kh·kw, L] (or [C·kh·kw, L]).
EMBER_API Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);

}  // namespace ember::nn::functional
