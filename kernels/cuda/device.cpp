// ember::cuda queries for the CUDA build (the CPU-only build has src/core/cuda_query.cpp). None of
// them throws on a machine without a driver or GPU: they report no devices and do nothing.
#include <atomic>

#include "ember/cuda/cuda.h"
#include "kernels/cuda/context.h"
#include "src/core/check.h"

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

bool cudnn_is_available() { return false; }

void synchronize(int64_t device_index) {
  if (!is_available()) return;
  if (device_index < 0) {
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
    return;
  }
  EMBER_CHECK_INDEX(device_index < device_count(),
                    "cuda::synchronize: device index {} is out of range: {} device(s) visible",
                    device_index, device_count());
  int current = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&current));
  EMBER_CUDA_CHECK(cudaSetDevice(static_cast<int>(device_index)));
  const cudaError_t status = cudaDeviceSynchronize();
  EMBER_CUDA_CHECK(cudaSetDevice(current));  // back to the caller's device before reporting
  EMBER_CUDA_CHECK(status);
}

void manual_seed_all(uint64_t seed) {
  cuda_detail::g_cuda_seed.store(seed, std::memory_order_relaxed);
}

void manual_seed(uint64_t seed) { manual_seed_all(seed); }

}  // namespace cuda
}  // namespace ember
