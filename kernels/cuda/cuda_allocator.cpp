// The CUDA caching allocator: one pool per device, blocks binned by rounded size, freed blocks kept
// for the next request of the same bin. cudaMalloc costs ~10-100 µs and cudaFree synchronises the
// whole device, so neither may sit on an op's hot path; after warm-up an op's output comes from a
// mutex-guarded vector pop (~50 ns).
//
// Stream order: every Ember op on a device is queued on its one stream (context.h), so a block
// freed while a kernel that reads it is still queued is safe to hand out at once: whatever the next
// owner queues runs after that kernel. When Ember gains user streams, a block must remember its
// stream and be reused only there (or after an event), as PyTorch's record_stream does.
#include <cuda_runtime.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/core/storage.h"
#include "kernels/cuda/context.h"
#include "src/core/check.h"

namespace ember::cuda_detail {
namespace {

constexpr size_t kSmallSize = size_t(1) << 20;  // requests up to 1 MiB ...
constexpr size_t kSmallRounding = 512;          // ... round to 512 B (cudaMalloc aligns to 256)
constexpr int kLargeDivisions = 8;              // larger ones to 1/8 of their power of two
constexpr int kMaxDevices = 128;                // Device holds an int8_t index

// Bins: sizes <= 1 MiB round up to 512 B (at most 511 B lost); above that to one of 8 steps per
// power of two (at most 12.5% lost), e.g. 5 MiB + 1 B -> 5.5 MiB, 100 MB -> 104 MiB. Coarse
// enough that a training loop's recurring shapes land in the same bins.
size_t round_size(size_t n) {
  if (n <= kSmallSize) return (n + kSmallRounding - 1) / kSmallRounding * kSmallRounding;
  size_t p = size_t(1) << (63 - __builtin_clzll(n));  // largest power of two <= n
  size_t step = p / kLargeDivisions;
  return (n + step - 1) / step * step;
}

// The deleter's context packs the device (top 8 bits) and the rounded size (low 56 bits), so
// freeing needs no lookup and allocating needs no per-block bookkeeping object.
void* pack(int device, size_t size) {
  return reinterpret_cast<void*>((static_cast<uintptr_t>(device) << 56) | size);
}
int unpack_device(void* ctx) { return static_cast<int>(reinterpret_cast<uintptr_t>(ctx) >> 56); }
size_t unpack_size(void* ctx) {
  return static_cast<size_t>(reinterpret_cast<uintptr_t>(ctx) & ((uintptr_t(1) << 56) - 1));
}

struct DevicePool {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void*>> free;  // rounded size -> cached blocks
  size_t cached = 0;                                    // bytes in `free`
  size_t allocated = 0;                                 // bytes handed out and not yet returned
};

class CudaCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    require_device("allocate");
    if (nbytes == 0) return {};
    const int dev = current_device();
    const size_t size = round_size(nbytes);
    DevicePool& pool = pools_[dev];
    {
      std::lock_guard<std::mutex> lock(pool.mutex);
      auto it = pool.free.find(size);
      if (it != pool.free.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        pool.cached -= size;
        pool.allocated += size;
        return {p, pack(dev, size), &release};
      }
    }
    void* p = malloc_or_throw(dev, size, nbytes);
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.allocated += size;
    return {p, pack(dev, size), &release};
  }

  size_t cached_bytes() const override {
    size_t total = 0;
    for (int d = 0; d < device_count() && d < kMaxDevices; ++d) {
      std::lock_guard<std::mutex> lock(pools_[d].mutex);
      total += pools_[d].cached;
    }
    return total;
  }

  void empty_cache() override {
    for (int d = 0; d < device_count() && d < kMaxDevices; ++d) free_cached(d);
  }

  static CudaCachingAllocator& instance() {
    // Never destroyed: tensors in static objects are freed after main returns, and by then the
    // CUDA runtime may be gone; their blocks just go back to this cache.
    static auto* a = new CudaCachingAllocator();
    return *a;
  }

 private:
  static void release(void* p, void* ctx) { instance().give_back(p, ctx); }

  void give_back(void* p, void* ctx) {
    DevicePool& pool = pools_[unpack_device(ctx)];
    const size_t size = unpack_size(ctx);
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.free[size].push_back(p);
    pool.cached += size;
    pool.allocated -= size;
  }

  // The slow path: a new block from the driver. On out-of-memory, return this device's cache to
  // the driver and try once more before giving up.
  void* malloc_or_throw(int dev, size_t size, size_t requested) {
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, size);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      free_cached(dev);
      err = cudaMalloc(&p, size);
    }
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      (void)cudaMemGetInfo(&free_b, &total_b);
      size_t in_use;
      {
        std::lock_guard<std::mutex> lock(pools_[dev].mutex);
        in_use = pools_[dev].allocated;
      }
      constexpr double kMiB = 1024.0 * 1024.0;
      EMBER_CHECK_AS(
          OutOfMemoryError, false,
          "allocate: CUDA out of memory: tried to allocate {:.2f} MiB on cuda:{} ({:.2f} MiB "
          "free of {:.2f} MiB; {:.2f} MiB held by Ember tensors). Hint: use smaller batches or "
          "free tensors you no longer need",
          requested / kMiB, dev, free_b / kMiB, total_b / kMiB, in_use / kMiB);
    }
    if (err != cudaSuccess) throw_cuda_error(err, "cudaMalloc(&p, size)", __FILE__, __LINE__);
    return p;
  }

  void free_cached(int dev) {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(pools_[dev].mutex);
      for (auto& [size, list] : pools_[dev].free)
        blocks.insert(blocks.end(), list.begin(), list.end());
      pools_[dev].free.clear();
      pools_[dev].cached = 0;
    }
    if (blocks.empty()) return;
    DeviceGuard guard(dev);
    for (void* p : blocks) EMBER_CUDA_CHECK(cudaFree(p));  // synchronises the device
  }

  mutable DevicePool pools_[kMaxDevices];
};

}  // namespace

Allocator* cuda_allocator() { return &CudaCachingAllocator::instance(); }

}  // namespace ember::cuda_detail
