// Kernel op rows of the pool family: pooling: max, average, adaptive, LP, unpooling, fractional.
// Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this list; Kind is
// a kernel type of src/dispatch/kernel_signatures_pool.h. LP pooling is composed of avg_pool.
//   max_pool            windowed or adaptive max, with int64 indices
//   avg_pool            windowed or adaptive mean
//   avg_pool_backward   the input gradient of avg_pool
//   pool_scatter        max-pool backward (accumulate) and max_unpool forward (assign)
//   pool_gather         max_unpool backward (and the double backward of pool_scatter)
//   fractional_max_pool fractional max pooling, 2-d and 3-d
//   max_pool_2x2        2x2 windows at stride 2 over dense NCHW planes, with uint8 window offsets
//                       for the backward instead of int64 indices (PoolParams::offsets)
//   max_pool_2x2_backward  its input gradient from those offsets
#pragma once

#define EMBER_POOL_KERNEL_OPS(_)         \
  _(max_pool, Pool)                      \
  _(avg_pool, Pool)                      \
  _(avg_pool_backward, Pool)             \
  _(pool_scatter, PoolIndex)             \
  _(pool_gather, PoolIndex)              \
  _(fractional_max_pool, FractionalPool) \
  _(max_pool_2x2, Pool)                  \
  _(max_pool_2x2_backward, Pool)
