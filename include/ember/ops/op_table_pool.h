// Kernel op rows of the pool family: pooling: max, average, adaptive, LP, unpooling, fractional.
// Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this list; Kind is
// a kernel type of src/dispatch/kernel_signatures_pool.h.
#pragma once

#define EMBER_POOL_KERNEL_OPS(_)
