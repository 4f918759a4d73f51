// The CPU allocator. Small buffers come from aligned malloc. Large ones (>= 1 MiB) are kept in a
// cache after free and reused for the next request of the same rounded size, because a fresh
// 64 MiB buffer costs ~16k page faults (64 MiB / 4 KiB) -- about 10 ms, more than the add that
// fills it. The cache is bounded; beyond the bound freed blocks go back to the system.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "ember/core/storage.h"

namespace ember {
namespace {

constexpr size_t kAlignment = 64;            // one cache line; enough for AVX-512 loads
constexpr size_t kLargeThreshold = 1 << 20;  // cache buffers of 1 MiB and more
constexpr size_t kLargeRounding = 1 << 20;   // round large sizes up to whole MiB
constexpr size_t kMaxCachedBytes = size_t(1) << 30;

void* aligned_alloc_or_throw(size_t nbytes) {
  void* p = nullptr;
  if (posix_memalign(&p, kAlignment, nbytes == 0 ? kAlignment : nbytes) != 0)
    throw std::bad_alloc();
  return p;
}

class CpuCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes < kLargeThreshold) return {aligned_alloc_or_throw(nbytes), nullptr, &free_small};
    size_t rounded = (nbytes + kLargeRounding - 1) / kLargeRounding * kLargeRounding;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.find(rounded);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= rounded;
        return {p, reinterpret_cast<void*>(rounded), &free_large};
      }
    }
    return {aligned_alloc_or_throw(rounded), reinterpret_cast<void*>(rounded), &free_large};
  }
  size_t cached_bytes() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }
  void empty_cache() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, blocks] : free_)
      for (void* p : blocks) std::free(p);
    free_.clear();
    cached_ = 0;
  }
  ~CpuCachingAllocator() override { empty_cache(); }

  static CpuCachingAllocator& instance() {
    // Never destroyed: tensors held in static objects may be freed after main returns.
    static auto* a = new CpuCachingAllocator();
    return *a;
  }

 private:
  static void free_small(void* p, void*) { std::free(p); }
  static void free_large(void* p, void* ctx) {
    instance().give_back(p, reinterpret_cast<size_t>(ctx));
  }
  void give_back(void* p, size_t rounded) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cached_ + rounded <= kMaxCachedBytes) {
        free_[rounded].push_back(p);
        cached_ += rounded;
        return;
      }
    }
    std::free(p);
  }

  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0;
};

}  // namespace

Allocator* cpu_allocator() { return &CpuCachingAllocator::instance(); }

}  // namespace ember
