#include "ember/core/threads.h"

#include <atomic>
#include <thread>

#include "check.h"

#ifdef _OPENMP
#include <omp.h>
#endif

extern "C" void openblas_set_num_threads(int);

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
  openblas_set_num_threads(n);
#ifdef _OPENMP
  omp_set_num_threads(n);  // oneDNN's OpenMP regions follow this
#endif
}

int get_num_threads() { return g_threads.load(std::memory_order_relaxed); }

}  // namespace ember
