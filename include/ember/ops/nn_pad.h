// ATen-style free functions of the pad family: padding in every mode, pixel (un)shuffle, channel
// shuffle and im2col/col2im (the ops behind F::pad, F::pixel_shuffle, F::unfold, F::fold, ...).
//
//   Tensor y = ember::pad(x, {1, 1, 2, 2}, "reflect");      // x [N, C, H, W] -> [N, C, H+4, W+2]
//   Tensor z = ember::reflection_pad2d(x, {1, 1, 2, 2});    // the same
//   Tensor cols = ember::im2col(x, {3, 3}, {1, 1}, {1, 1}, {1, 1});  // [N, C·9, H·W]
//
// Pads list (left, right) pairs from the last dim backwards, as in PyTorch: {1, 1, 2, 2} pads the
// last dim by 1 on each side and the one before by 2. Negative pads crop. Constant padding is
// ember::constant_pad_nd (ember/ops/shape.h). Every op here is differentiable; the index-map
// paddings and im2col/col2im support double backward (each one's backward is the other op).
#pragma once

#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

/// PyTorch's torch.nn.functional.pad / at::pad: mode "constant" (fill with value, default 0; any
/// rank and dtype), "reflect", "replicate" or "circular" (the last 1, 2 or 3 dims of a batched
/// or unbatched input: pad of length 2 for a 2-D/3-D input, 4 for 3-D/4-D, 6 for 4-D/5-D; only
/// "constant" takes a value).
EMBER_API Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode = "constant",
                     std::optional<double> value = std::nullopt);

/// Reflection padding (the edge element is not repeated): [C, W] or [N, C, W]; padding (left,
/// right), each smaller than W.
EMBER_API Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding);
/// [C, H, W] or [N, C, H, W]; padding (left, right, top, bottom).
EMBER_API Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding);
/// [C, D, H, W] or [N, C, D, H, W]; padding (left, right, top, bottom, front, back).
EMBER_API Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding);
/// Replication padding (the edge element is repeated); shapes as reflection_pad1d.
EMBER_API Tensor replication_pad1d(const Tensor& self, IntArrayRef padding);
/// Replication padding of the last 2 dims.
EMBER_API Tensor replication_pad2d(const Tensor& self, IntArrayRef padding);
/// Replication padding of the last 3 dims.
EMBER_API Tensor replication_pad3d(const Tensor& self, IntArrayRef padding);
/// Circular padding (the input wraps around) of the last padding.size()/2 dims (1 to 3) of a
/// batched or unbatched input; each pad at most the dim's size. Negative pads crop first, and the
/// wrap then repeats what is left (PyTorch's _pad_circular).
EMBER_API Tensor _pad_circular(const Tensor& self, IntArrayRef padding);

/// [*, C·r², H, W] -> [*, C, H·r, W·r]: channel blocks of r² become r x r pixel blocks.
EMBER_API Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
/// The inverse of pixel_shuffle: [*, C, H·r, W·r] -> [*, C·r², H, W].
EMBER_API Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);
/// [N, C, *] with C = g·k: channel (i·k + j) moves to (j·g + i), as ShuffleNet's channel shuffle.
EMBER_API Tensor channel_shuffle(const Tensor& self, int64_t groups);

/// Sliding blocks of a [N, C, H, W] (or [C, H, W]) image as columns: [N, C·kh·kw, L] (or
/// [C·kh·kw, L]), L the number of block positions; kernel_size, dilation, padding and stride are
/// (height, width) pairs.
EMBER_API Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
                        IntArrayRef padding, IntArrayRef stride);
/// The adjoint of im2col: columns [N, C·kh·kw, L] (or [C·kh·kw, L]) summed into an image of
/// output_size (height, width): [N, C, H, W] (or [C, H, W]). Overlapping blocks add up.
EMBER_API Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
                        IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride);

}  // namespace ember
