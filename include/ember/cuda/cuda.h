// CUDA availability. Safe to call in any build: without CUDA (or without a GPU) they report none.
#pragma once

#include <cstdint>

#include "ember/core/macros.h"

namespace ember {
namespace cuda {
/// True when Ember was built with CUDA and at least one GPU is visible.
EMBER_API bool is_available();
/// Number of visible GPUs (0 without CUDA support or without a driver).
EMBER_API int64_t device_count();
/// Whether cuDNN is available to Ember: false until Ember's convolutions use it.
EMBER_API bool cudnn_is_available();
/// Waits for all work queued on device `device_index` (-1: the current device); a no-op without
/// a GPU, an Error naming the index when there is no such device.
EMBER_API void synchronize(int64_t device_index = -1);
/// Seeds every device's generator. Random fills of CUDA tensors (rand, randn, uniform_, ...)
/// currently draw on the host from the default generator and are copied over, so
/// ember::manual_seed is what makes them reproducible; this records the seed for device-side
/// generators.
EMBER_API void manual_seed_all(uint64_t seed);
/// Seeds the current device's generator (LibTorch's torch::cuda::manual_seed); with one
/// generator for all devices today, the same as manual_seed_all.
EMBER_API void manual_seed(uint64_t seed);
}  // namespace cuda
}  // namespace ember
