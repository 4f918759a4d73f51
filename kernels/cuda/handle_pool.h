// Library handles (cuBLAS, cuSOLVER) kept per (thread, device). Creating one costs milliseconds
// and allocates device memory, and a handle must not be used by two threads at once, so each
// thread keeps one per device for its lifetime. A thread that exits returns its handles to a
// pool the next thread draws from, so thread churn does not leak them; the pool is never
// destroyed (handles outlive main). Private to the CUDA backend.
#pragma once

#include <mutex>
#include <vector>

#include "ember/core/macros.h"

namespace ember::cuda_detail {

constexpr int kMaxHandleDevices = 128;

/// The calling thread's handle of type Handle for `device` (0 <= device < kMaxHandleDevices),
/// taken from the pool or made by create(&handle), which reports its own failure.
template <class Handle, class Create>
Handle thread_handle(int device, Create&& create) {
  struct Pool {
    std::mutex mutex;
    std::vector<Handle> free[kMaxHandleDevices];
  };
  static Pool* const pool = new Pool();
  struct ThreadHandles {
    Handle handle[kMaxHandleDevices] = {};
    ~ThreadHandles() {
      std::lock_guard<std::mutex> lock(pool->mutex);
      for (int d = 0; d < kMaxHandleDevices; ++d)
        if (handle[d]) pool->free[d].push_back(handle[d]);
    }
  };
  thread_local ThreadHandles mine;
  Handle& h = mine.handle[device];
  if (EMBER_UNLIKELY(h == nullptr)) {
    {
      std::lock_guard<std::mutex> lock(pool->mutex);
      if (!pool->free[device].empty()) {
        h = pool->free[device].back();
        pool->free[device].pop_back();
      }
    }
    if (h == nullptr) create(&h);
  }
  return h;
}

}  // namespace ember::cuda_detail
