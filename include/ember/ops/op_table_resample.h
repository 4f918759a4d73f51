// Kernel op rows of the resample family: interpolation (upsampling) and grid_sample (affine_grid
// is composed of differentiable ops and needs no kernel). Each row is _(name, Kind) as in
// EMBER_KERNEL_OPS (op_table.h), which includes this list; Kind is a kernel type of
// src/dispatch/kernel_signatures_resample.h.
#pragma once

#define EMBER_RESAMPLE_KERNEL_OPS(_) \
  _(upsample, Upsample)              \
  _(upsample_backward, Upsample)     \
  _(grid_sample, GridSample)         \
  _(grid_sample_backward, GridSample)
