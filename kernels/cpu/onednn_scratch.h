// A growable, page-aligned buffer kept between calls, for the memory the oneDNN paths hand a
// primitive per call: its scratchpad (scratchpad_mode::user, because cached primitives run on any
// thread and oneDNN's library scratchpad only allows the creating one) and operands reordered to
// a blocked layout. Each user keeps one per thread (thread_local), so calls never share it; a
// fresh allocation per call cost L2's conv ~1.5k page faults (~1 ms against ~10 ms).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace ember::kernels {

class OnednnScratch {
 public:
  /// At least `want` bytes, 4096-aligned; the contents are not kept when it grows.
  void* get(size_t want) {
    if (want > bytes_) {
      data_.reset();
      const size_t rounded = (want + 4095) / 4096 * 4096;
      data_.reset(std::aligned_alloc(4096, rounded));
      if (!data_) throw std::bad_alloc();
      bytes_ = rounded;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> data_;
  size_t bytes_ = 0;
};

}  // namespace ember::kernels
