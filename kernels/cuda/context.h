// The CUDA backend's runtime context: status checks that throw, the current device and stream,
// and cached device properties. Private to the library; safe to include from .cu files (no fmt).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "ember/core/device.h"

namespace ember::cuda_detail {

/// Throws ember::Error "CUDA error: <call> failed: <cudaGetErrorString> (<name>) at file:line".
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

/// EMBER_CUDA_CHECK(cudaMemcpy(...)): throws an ember::Error naming the call when it fails.
#define EMBER_CUDA_CHECK(call)                                                            \
  do {                                                                                    \
    cudaError_t ember_cuda_err_ = (call);                                                 \
    if (ember_cuda_err_ != cudaSuccess)                                                   \
      ::ember::cuda_detail::throw_cuda_error(ember_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

/// Number of visible GPUs; 0 (never an error) without a driver or a GPU. Cached after the first
/// call, so the hot path pays one load.
int device_count();

/// Throws an ember::Error naming `op` when there is no usable GPU.
void require_device(const char* op);

/// The calling thread's current device (cudaGetDevice).
int current_device();

/// `d.index()` for an explicit index, the current device for Device(kCUDA, -1). Checks the range.
int resolve_index(Device d, const char* op);

/// The stream all Ember work on the current device is queued on. Today this is the legacy
/// default stream (0) on every device: it orders against every other blocking stream, so the
/// caching allocator can hand a freed block to the next op without an event.
inline cudaStream_t current_stream() { return nullptr; }

/// Multiprocessor count of the current device (cached per device), for sizing grids.
int sm_count();

/// Sets the current device for a scope and restores the previous one after (no-op when equal).
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace ember::cuda_detail
