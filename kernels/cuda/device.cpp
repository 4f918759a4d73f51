// ember::cuda queries for the CUDA build (the CPU-only build has src/core/cuda_query.cpp). None of
// them throws on a machine without a driver or GPU: they report no devices and do nothing.
#include <atomic>

#include "ember/cuda/cuda.h"
#include "kernels/cuda/context.h"

namespace ember {
namespace cuda_detail {
// The seed the per-device generators start from once CUDA random kernels exist. Today random
// fills of CUDA tensors draw on the host from the default generator (ember::manual_seed), so
// this only records the value.
std::atomic<uint64_t> g_cuda_seed{67280421310721ull};
}  // namespace cuda_detail

namespace cuda {

bool is_available() { return cuda_detail::device_count() > 0; }

int64_t device_count() { return cuda_detail::device_count(); }

void synchronize() {
  if (!is_available()) return;
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

void manual_seed_all(uint64_t seed) {
  cuda_detail::g_cuda_seed.store(seed, std::memory_order_relaxed);
}

}  // namespace cuda
}  // namespace ember
