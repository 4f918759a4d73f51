// A refcounted byte buffer on one device, plus the allocator interface each backend implements.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "ember/core/device.h"
#include "ember/core/intrusive_ptr.h"
#include "ember/core/macros.h"

namespace ember {

/// Memory for one buffer: the pointer, and how to give it back.
struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;  // passed to the deleter (e.g. the allocator's block)
  void (*deleter)(void* ptr, void* ctx) = nullptr;
};

/// A device's allocator. Each backend registers one (see get_allocator).
class EMBER_API Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
  /// Bytes the allocator holds in its cache for reuse (for tests and benchmarks).
  virtual size_t cached_bytes() const { return 0; }
  /// Gives cached blocks back to the system.
  virtual void empty_cache() {}
  /// Bytes handed out and not yet freed (as served: size classes rounded up), and the most at
  /// any time since the last reset_peak_stats(); 0 from an allocator that does not count.
  virtual size_t allocated_bytes() const { return 0; }
  virtual size_t peak_allocated_bytes() const { return 0; }
  virtual void reset_peak_stats() {}
};

EMBER_API Allocator* get_allocator(DeviceType t);
EMBER_API void set_allocator(DeviceType t, Allocator* a);

/// A buffer shared by a tensor and all its views. The version counter lives here so that views,
/// which share storage, share it too (it counts in-place writes for autograd's saved-tensor check).
class EMBER_API StorageImpl : public RefCounted {
 public:
  StorageImpl(size_t nbytes, DataPtr data, Device device)
      : data_(data), nbytes_(nbytes), device_(device) {}
  ~StorageImpl() override {
    if (data_.deleter) data_.deleter(data_.ptr, data_.ctx);
  }
  void* data() const { return data_.ptr; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  /// For factories, on a buffer nobody else has seen yet.
  void reset_version() { version_.store(0, std::memory_order_relaxed); }
  /// Allocated under InferenceMode: what Tensor::is_inference() reports, for this buffer and every
  /// view of it (as LibTorch, a view made in inference mode of a normal tensor stays normal).
  bool is_inference() const { return inference_; }
  void set_inference(bool inference) { inference_ = inference; }

 private:
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  std::atomic<uint32_t> version_{0};
  bool inference_ = false;
};

/// Allocates nbytes on `device` through its registered allocator.
EMBER_API intrusive_ptr<StorageImpl> make_storage(size_t nbytes, Device device);

}  // namespace ember
