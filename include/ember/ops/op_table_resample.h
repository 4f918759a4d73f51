// Kernel op rows of the resample family: interpolation (upsampling), grid_sample, affine_grid.
// Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this list; Kind is
// a kernel type of src/dispatch/kernel_signatures_resample.h.
#pragma once

#define EMBER_RESAMPLE_KERNEL_OPS(_)
