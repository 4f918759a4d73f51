#include "ember/core/threads.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "check.h"
#include "parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ember {
namespace {
int initial_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}
std::atomic<int> g_threads{initial_threads()};
}  // namespace

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n > 0, "set_num_threads: expected a positive number of threads, got {}", n);
  g_threads.store(n, std::memory_order_relaxed);
  // OpenBLAS stays on one thread (kernels/cpu/blas_core.cpp): the OpenMP team below is the only
  // pool, and large products share out over it.
#ifdef _OPENMP
  omp_set_num_threads(n);  // oneDNN's OpenMP regions follow this
#endif
}

int get_num_threads() { return g_threads.load(std::memory_order_relaxed); }

void parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                  const std::function<void(int64_t, int64_t)>& f) {
  EMBER_CHECK_VALUE(grain_size >= 0, "parallel_for: expected a non-negative grain_size, got {}",
                    grain_size);
  // An exception must not leave an OpenMP region (the program would terminate): the first one is
  // kept and rethrown once every chunk is done.
  std::exception_ptr error;
  std::atomic_flag failed = ATOMIC_FLAG_INIT;
  auto chunk = [&](int64_t b, int64_t e) {
    try {
      f(b, e);
    } catch (...) {
      if (!failed.test_and_set()) error = std::current_exception();
    }
  };
  // The loops' own (inline) parallel_for; a grain of 0 means "any chunk size".
  parallel_for<decltype(chunk)>(begin, end, std::max<int64_t>(grain_size, 1), chunk);
  if (error) std::rethrow_exception(error);
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

int get_thread_num() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace ember
