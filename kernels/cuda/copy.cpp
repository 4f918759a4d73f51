// The `copy` kernel slot: moves dense bytes between the host and a GPU, or between GPUs. copy_
// (src/ops/copy.cpp) has already made both sides dense and of one dtype; layout changes and
// conversions happen on one device through the cast kernel.
#include <cuda_runtime.h>

#include <cstring>

#include "kernels/cuda/context.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {
namespace {

// Blocking copies, as LibTorch's copy_(non_blocking=false): the host side must be done with by the
// time we return (the op may free a host staging buffer next), and a device-to-host result must be
// readable. Both wait for the work queued before them on the stream, which is what makes the
// values current.
void cuda_copy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  cudaStream_t stream = current_stream();
  if (dst_device.is_cuda() && src_device.is_cuda()) {
    int d = resolve_index(dst_device, "copy_"), s = resolve_index(src_device, "copy_");
    if (d == s) {
      DeviceGuard guard(d);
      EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, stream));
    } else {
      // Ordered after the work queued on the source device's stream; the destination device's
      // stream then waits by the synchronise (peer copies are rare: no event machinery yet).
      // The destination's stream is drained first: `dst` may be a cached block that a kernel
      // still queued there reads, and the source stream does not order against it.
      {
        DeviceGuard dst_guard(d);
        EMBER_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
      }
      DeviceGuard guard(s);
      EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(dst, d, src, s, nbytes, stream));
      EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    return;
  }
  if (dst_device.is_cuda()) {
    DeviceGuard guard(resolve_index(dst_device, "copy_"));
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, stream));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  if (src_device.is_cuda()) {
    DeviceGuard guard(resolve_index(src_device, "copy_"));
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, stream));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  std::memcpy(dst, src, nbytes);
}

}  // namespace

void register_cuda_copy() { register_kernel<OpId::copy>(kCUDA, &cuda_copy, kAllDtypes); }

}  // namespace ember::cuda_detail
