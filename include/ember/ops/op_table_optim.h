// Kernel op rows of the optim family: the fused optimizer updates (one pass per parameter, many
// parameters per call). Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which
// includes this list; Kind is a kernel type of src/dispatch/kernel_signatures_optim.h. One row per
// optimizer family (adam_update serves Adam and AdamW with every option).
#pragma once

#define EMBER_OPTIM_KERNEL_OPS(_)    \
  _(sgd_update, SgdUpdate)           \
  _(adam_update, AdamUpdate)         \
  _(adagrad_update, AdagradUpdate)   \
  _(rmsprop_update, RmspropUpdate)   \
  _(adamax_update, AdamaxUpdate)     \
  _(adadelta_update, AdadeltaUpdate) \
  _(nadam_update, NadamUpdate)       \
  _(radam_update, RadamUpdate)
