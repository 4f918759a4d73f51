// Kernel op rows of the conv family: convolution and transposed convolution (forward, backward
// data, backward weights). Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which
// includes this list; Kind is a kernel type of src/dispatch/kernel_signatures_conv.h. Transposed
// convolution runs on the same three rows (kernels/common/conv_params.h). convolution_relu is
// the forward with max(y, 0) applied in the same pass (nn::intrinsic::ConvReLU*d in inference);
// a backend without it leaves the row empty and ember::convolution_relu runs the two ops.
#pragma once

#define EMBER_CONV_KERNEL_OPS(_)     \
  _(convolution, Conv)               \
  _(convolution_relu, Conv)          \
  _(convolution_backward_data, Conv) \
  _(convolution_backward_weights, Conv)
