// parallel_for: split [begin, end) over the intra-op threads, but only when the range is larger
// than `grain` -- below that, thread wake-up (~2-5 us with OpenMP) costs more than the work.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ember {

int get_num_threads();

/// Elementwise loops use this grain: 32k elements is ~10 us of a simple float op per thread.
constexpr int64_t kElementwiseGrain = 32768;

template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (begin >= end) return;
  int64_t n = end - begin;
#ifdef _OPENMP
  int threads = get_num_threads();
  if (threads > 1 && n > grain && !omp_in_parallel()) {
    const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
    const int64_t per = (n + chunks - 1) / chunks;
    // An exception must not leave an OpenMP region (that ends the process): the first one is
    // kept and rethrown after the region, as it would propagate with one thread. (User code runs
    // in here: FlexAttention's score_mod and mask_mod.)
    std::exception_ptr error;
#pragma omp parallel num_threads(static_cast <int>(chunks))
    {
      // OpenMP may start fewer threads than asked (OMP_THREAD_LIMIT, OMP_DYNAMIC): each thread
      // takes every team-th chunk, so no chunk is left out and the boundaries do not change.
      const int64_t team = omp_get_num_threads();
      try {
        for (int64_t c = omp_get_thread_num(); c < chunks; c += team) {
          const int64_t b = begin + c * per;
          const int64_t e = std::min(end, b + per);
          if (b < e) f(b, e);
        }
      } catch (...) {
#pragma omp critical(ember_parallel_for_error)
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
#endif
  f(begin, end);
}

}  // namespace ember
