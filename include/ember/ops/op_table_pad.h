// Kernel op rows of the pad family: padding in every mode, pixel (un)shuffle, fold/unfold, channel
// shuffle. Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this list;
// Kind is a kernel type of src/dispatch/kernel_signatures_pad.h. Constant padding, pixel shuffle
// and channel shuffle are compositions of existing ops and need no row.
#pragma once

#define EMBER_PAD_KERNEL_OPS(_) \
  _(pad_nd, PadIndex)           \
  _(pad_nd_backward, PadIndex)  \
  _(im2col, Im2Col)             \
  _(col2im, Im2Col)
