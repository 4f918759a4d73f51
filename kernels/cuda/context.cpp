#include "kernels/cuda/context.h"

#include <atomic>

#include "src/core/check.h"

namespace ember::cuda_detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // Clear the sticky "last error" so one failure is not reported again by the next check.
  (void)cudaGetLastError();
  EMBER_FAIL("CUDA error: {} failed: {} ({}) at {}:{}", call, cudaGetErrorString(err),
             cudaGetErrorName(err), file, line);
}

namespace {
struct DeviceQuery {
  int count = 0;
  cudaError_t status = cudaSuccess;
};
const DeviceQuery& query() {
  // cudaGetDeviceCount is the one call that is safe without a driver: it reports
  // cudaErrorNoDevice / cudaErrorInsufficientDriver instead of failing hard.
  static const DeviceQuery q = [] {
    DeviceQuery r;
    r.status = cudaGetDeviceCount(&r.count);
    if (r.status != cudaSuccess) {
      (void)cudaGetLastError();
      r.count = 0;
    }
    return r;
  }();
  return q;
}
}  // namespace

int device_count() { return query().count; }

void require_device(const char* op) {
  const DeviceQuery& q = query();
  if (EMBER_LIKELY(q.count > 0)) return;
  EMBER_FAIL(
      "{}: CUDA is not available: no CUDA device was found ({}). Hint: check nvidia-smi and "
      "CUDA_VISIBLE_DEVICES, or keep the tensors on the CPU",
      op, q.status == cudaSuccess ? "0 devices" : cudaGetErrorString(q.status));
}

int current_device() {
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

int resolve_index(Device d, const char* op) {
  require_device(op);
  if (!d.has_index()) return current_device();
  EMBER_CHECK(d.index() < device_count(),
              "{}: invalid device {}: only {} CUDA device(s) are visible. Hint: use an index "
              "below {}",
              op, d, device_count(), device_count());
  return d.index();
}

int sm_count() {
  // Fixed per device for the life of the process; one slot per possible index (Device holds an
  // int8_t), filled on first use. Racing writers store the same value.
  static std::atomic<int> counts[128];
  int dev = current_device();
  int c = counts[dev].load(std::memory_order_relaxed);
  if (EMBER_UNLIKELY(c == 0)) {
    EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&c, cudaDevAttrMultiProcessorCount, dev));
    counts[dev].store(c, std::memory_order_relaxed);
  }
  return c;
}

DeviceGuard::DeviceGuard(int index) {
  int cur = current_device();
  if (cur != index) {
    EMBER_CUDA_CHECK(cudaSetDevice(index));
    previous_ = cur;
  }
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

}  // namespace ember::cuda_detail
