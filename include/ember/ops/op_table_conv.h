// Kernel op rows of the conv family: convolution and transposed convolution (forward, backward data, backward weights).
// Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this list; Kind is
// a kernel type of src/dispatch/kernel_signatures_conv.h.
#pragma once

#define EMBER_CONV_KERNEL_OPS(_)
