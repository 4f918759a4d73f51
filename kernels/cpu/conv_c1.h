// A direct AVX-512 convolution for the first layer of an image CNN: one input channel, NCHW,
// float32, stride 1, no padding or dilation, 2-D (LeNet's conv 1 -> 32, 5x5 on 28x28). oneDNN's
// fast kernels for it write a 16-channel blocked output, and the reorders of y to NCHW and of dy
// from it cost as much as the convolution itself; this kernel reads and writes NCHW directly.
//
// Each image is treated as one flat run of H*W floats: output position p = oh*W + ow reads input
// p + kh*W + kw for every tap, so 16 consecutive outputs (spanning at most two rows, W >= 16) are
// one unaligned load per tap, and the W - OW columns past each output row are computed and thrown
// away (24 of 28 useful in LeNet). Forward: 8 output channels x 48 positions of accumulators, one
// broadcast weight per channel and tap (one Xeon thread, LeNet's layer: 0.50 ms, oneDNN with its
// reorder 0.70). Backward weights: 4 output channels x up to 5 taps of a
// kernel row, against a copy of dy laid out W wide with zeros in the thrown-away columns.
#pragma once

#include "kernels/common/conv_params.h"

namespace ember::kernels {

/// The forward (y = conv(x, w) + b) when this kernel applies to p (float32 is the caller's
/// check); false, doing nothing, otherwise.
bool conv_c1_forward(const ConvParams& p);

/// The weight (and bias, when p.b is set) gradient when this kernel applies; false otherwise.
bool conv_c1_backward_weights(const ConvParams& p);

}  // namespace ember::kernels
