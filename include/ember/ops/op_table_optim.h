// Kernel op rows of the optim family: the fused optimizer updates (one pass per parameter, multi-tensor).
// Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this list; Kind is
// a kernel type of src/dispatch/kernel_signatures_optim.h.
#pragma once

#define EMBER_OPTIM_KERNEL_OPS(_)
