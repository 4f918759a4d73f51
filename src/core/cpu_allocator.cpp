// The CPU allocator. Buffers under 16 KiB come from aligned malloc, whose thread caches serve
// them well. Larger ones are kept in a cache after free and handed to the next request of the
// same size class, because glibc gives them back to the system:
//  - >= 1 MiB (rounded to whole MiB) are mmap'd: a fresh 64 MiB buffer costs ~16k page faults
//    (64 MiB / 4 KiB), about 10 ms, more than the add that fills it;
//  - 16 KiB .. 1 MiB (four size classes per power of two, so at most 25% is wasted) live at the
//    top of the heap, and freeing one that borders the top trims the heap (M_TRIM_THRESHOLD,
//    128 KiB) when it grows past the threshold: the next buffer faults its pages in again. For
//    `c = mm(a, b)` at n = 128 (a 64 KiB C each call) on two threads that was half the time:
//    29 us a call against 14 us into a preallocated C.
// The cache is bounded; beyond the bound freed blocks go back to the system.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "ember/core/storage.h"
#include "src/core/check.h"

namespace ember {
namespace {

constexpr size_t kAlignment = 64;              // one cache line; enough for AVX-512 loads
constexpr size_t kMediumThreshold = 16 << 10;  // cache buffers of 16 KiB and more
constexpr size_t kLargeThreshold = 1 << 20;    // from 1 MiB, whole-MiB classes
constexpr size_t kLargeRounding = 1 << 20;
constexpr size_t kMaxCachedBytes = size_t(1) << 30;
// Medium classes: for 2^p <= size < 2^(p+1), four classes of 2^(p-2) bytes each.
constexpr int kMediumLog2Min = 14, kMediumLog2End = 20;
constexpr int kMediumClasses = (kMediumLog2End - kMediumLog2Min) * 4;

// RAM plus swap: no request beyond it can be filled. Checked before asking the system because a
// system that overcommits (as some VMs do) grants any size and the first fill then runs for
// hours or is killed, where LibTorch's users expect an out-of-memory error at once.
size_t machine_memory_bytes() {
  static const size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return SIZE_MAX;
    size_t swap = 0;
    if (FILE* f = std::fopen("/proc/meminfo", "r")) {
      char line[128];
      unsigned long long kib = 0;
      while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "SwapTotal: %llu kB", &kib) == 1) swap = size_t(kib) << 10;
      std::fclose(f);
    }
    return size_t(pages) * size_t(page) + swap;
  }();
  return bytes;
}

void* aligned_alloc_or_throw(size_t nbytes) {
  EMBER_CHECK_AS(OutOfMemoryError, nbytes <= machine_memory_bytes(),
                 "allocate: CPU out of memory: tried to allocate {} bytes ({:.2f} GiB), more than "
                 "this machine's memory and swap ({:.2f} GiB)",
                 nbytes, static_cast<double>(nbytes) / (1 << 30),
                 static_cast<double>(machine_memory_bytes()) / (1 << 30));
  void* p = nullptr;
  EMBER_CHECK_AS(OutOfMemoryError,
                 posix_memalign(&p, kAlignment, nbytes == 0 ? kAlignment : nbytes) == 0,
                 "allocate: CPU out of memory: tried to allocate {} bytes ({:.2f} GiB). Hint: "
                 "use smaller tensors, or free ones you no longer need",
                 nbytes, static_cast<double>(nbytes) / (1 << 30));
  return p;
}

int floor_log2(size_t v) { return 63 - __builtin_clzll(static_cast<unsigned long long>(v)); }

// The smallest medium class size >= nbytes: a multiple of 2^(p-2) for 2^p <= nbytes < 2^(p+1),
// so 2^p, 1.25·2^p, 1.5·2^p, 1.75·2^p or 2^(p+1).
size_t medium_bytes(size_t nbytes) {
  const size_t step = size_t(1) << (floor_log2(nbytes) - 2);
  return (nbytes + step - 1) / step * step;
}
// The free-list index of a medium class size (< kLargeThreshold).
int medium_index(size_t bytes) {
  const int p = floor_log2(bytes);
  return (p - kMediumLog2Min) * 4 + static_cast<int>((bytes >> (p - 2)) - 4);
}

class CpuCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes < kMediumThreshold) {
      void* p = aligned_alloc_or_throw(nbytes);
      count_alloc(nbytes);
      return {p, reinterpret_cast<void*>(nbytes), &free_small};
    }
    const size_t rounded = class_bytes(nbytes);
    count_alloc(rounded);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::vector<void*>& blocks = blocks_of(rounded);
      if (!blocks.empty()) {
        void* p = blocks.back();
        blocks.pop_back();
        cached_ -= rounded;
        return {p, reinterpret_cast<void*>(rounded), &free_cached};
      }
    }
    return {aligned_alloc_or_throw(rounded), reinterpret_cast<void*>(rounded), &free_cached};
  }
  size_t cached_bytes() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }
  void empty_cache() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, blocks] : large_) {
      for (void* p : blocks) std::free(p);
    }
    large_.clear();
    for (auto& blocks : medium_) {
      for (void* p : blocks) std::free(p);
      blocks.clear();
    }
    cached_ = 0;
  }
  size_t allocated_bytes() const override { return allocated_.load(std::memory_order_relaxed); }
  size_t peak_allocated_bytes() const override { return peak_.load(std::memory_order_relaxed); }
  void reset_peak_stats() override { peak_.store(allocated_bytes(), std::memory_order_relaxed); }
  ~CpuCachingAllocator() override { empty_cache(); }

  static CpuCachingAllocator& instance() {
    // Never destroyed: tensors held in static objects may be freed after main returns.
    static auto* a = new CpuCachingAllocator();
    return *a;
  }

 private:
  // The size a request of nbytes (>= kMediumThreshold) is served with.
  static size_t class_bytes(size_t nbytes) {
    if (nbytes < kLargeThreshold) return medium_bytes(nbytes);  // may round up to 1 MiB
    return (nbytes + kLargeRounding - 1) / kLargeRounding * kLargeRounding;
  }
  // The free list of a class size (caller holds mutex_). Medium classes are an indexed array;
  // only >= 1 MiB requests, which take far longer to fill than a hash lookup, use the map.
  std::vector<void*>& blocks_of(size_t rounded) {
    if (rounded < kLargeThreshold) return medium_[medium_index(rounded)];
    return large_[rounded];
  }
  static void free_small(void* p, void* ctx) {
    instance().allocated_.fetch_sub(reinterpret_cast<size_t>(ctx), std::memory_order_relaxed);
    std::free(p);
  }
  static void free_cached(void* p, void* ctx) {
    instance().allocated_.fetch_sub(reinterpret_cast<size_t>(ctx), std::memory_order_relaxed);
    instance().give_back(p, reinterpret_cast<size_t>(ctx));
  }
  // Two relaxed atomics per allocation: the statistics activation checkpointing is judged by.
  void count_alloc(size_t bytes) {
    const size_t now = allocated_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    size_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void give_back(void* p, size_t rounded) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cached_ + rounded <= kMaxCachedBytes) {
        blocks_of(rounded).push_back(p);
        cached_ += rounded;
        return;
      }
    }
    std::free(p);
  }

  mutable std::mutex mutex_;
  std::vector<void*> medium_[kMediumClasses];
  std::unordered_map<size_t, std::vector<void*>> large_;
  size_t cached_ = 0;
  std::atomic<size_t> allocated_{0};
  std::atomic<size_t> peak_{0};
};

}  // namespace

Allocator* cpu_allocator() { return &CpuCachingAllocator::instance(); }

}  // namespace ember
