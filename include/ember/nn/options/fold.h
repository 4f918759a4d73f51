// Options of Fold and Unfold and of F::fold / F::unfold, as LibTorch's torch/nn/options/fold.h:
//   nn::Unfold unfold(nn::UnfoldOptions({3, 3}).padding(1));
//   F::fold(cols, F::FoldFuncOptions({4, 5}, {2, 2}).stride(2));
// Every size is a (height, width) pair or one value for both.
#pragma once

#include "ember/core/arg.h"
#include "ember/core/expanding_array.h"

namespace ember::nn {

/// Options of Fold: columns [N, C·kh·kw, L] summed into images [N, C, output_size].
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  /// The spatial size of the output image.
  EMBER_ARG(ExpandingArray<2>, output_size);
  /// The size of the sliding blocks.
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  /// The spacing between kernel elements.
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  /// Implicit zero padding on both sides of the image.
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  /// The step between blocks.
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

/// Options of Unfold: images [N, C, H, W] as columns [N, C·kh·kw, L] of sliding blocks.
struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  /// The size of the sliding blocks.
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  /// The spacing between kernel elements.
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  /// Implicit zero padding on both sides of the image.
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  /// The step between blocks.
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

namespace functional {
/// Options of F::fold.
using FoldFuncOptions = FoldOptions;
/// Options of F::unfold.
using UnfoldFuncOptions = UnfoldOptions;
}  // namespace functional

}  // namespace ember::nn
