// Kernel op rows of the batchnorm family: batch, instance and group normalisation, local response
// normalisation. Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this
// list; Kind is a kernel type of src/dispatch/kernel_signatures_batchnorm.h.
#pragma once

#define EMBER_BATCHNORM_KERNEL_OPS(_)   \
  _(batch_norm_stats, BatchNormStats)   \
  _(batch_norm_reduce, BatchNormReduce) \
  _(batch_norm_apply, BatchNormApply)
