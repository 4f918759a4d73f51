// Kernel op rows of the conv family: convolution and transposed convolution (forward, backward
// data, backward weights). Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which
// includes this list; Kind is a kernel type of src/dispatch/kernel_signatures_conv.h. Transposed
// convolution runs on the same three rows (kernels/common/conv_params.h).
#pragma once

#define EMBER_CONV_KERNEL_OPS(_)     \
  _(convolution, Conv)               \
  _(convolution_backward_data, Conv) \
  _(convolution_backward_weights, Conv)
