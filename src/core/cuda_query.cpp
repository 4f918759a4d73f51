// ember::cuda queries for builds without CUDA: no devices. The CUDA build defines these in
// kernels/cuda/device.cpp instead.
#ifndef EMBER_WITH_CUDA
#include "ember/cuda/cuda.h"

namespace ember::cuda {
bool is_available() { return false; }
int64_t device_count() { return 0; }
bool cudnn_is_available() { return false; }
void synchronize(int64_t) {}
void manual_seed_all(uint64_t) {}
void manual_seed(uint64_t) {}
}  // namespace ember::cuda
#endif
