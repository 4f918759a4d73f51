// BENCHMARKS.md §7, hardware limits, built with -O3 -march=native -fopenmp (no tensor library).
//
// peak_ymm / peak_zmm: per thread, NACC in {8, 12, 16, 24} independent accumulators, each doing
//   acc = fma(acc, 0.999999, 1e-6) per iteration, 8 lanes (ymm, AVX2+FMA) or 16 lanes (zmm,
//   AVX-512F; NA on CPUs without it). FLOP = 2 * lanes * NACC * iters * threads. 2 threads = two
//   std::threads, wall time until both finish. One RESULT per NACC; the runner reports the best
//   NACC whose loop it found register-only in the disassembly (kernels are the extern "C"
//   functions peak_<ymm|zmm>_<NACC>, so `objdump -d` can find them).
// stream_copy / stream_triad: three double arrays of 256 MiB, OpenMP static schedule, first touch
//   in parallel. copy c = a (2 x 256 MiB), triad a = b + 3c (3 x 256 MiB). GB/s = bytes/time/1e9;
//   11 repetitions, the first discarded.
// Usage: hwlimits <peak_ymm|peak_zmm|stream_copy|stream_triad> <1|2>.
#include <immintrin.h>
#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench_timer.h"

namespace {

const std::vector<std::string> kCases = {"peak_ymm", "peak_zmm", "stream_copy", "stream_triad"};
constexpr long kIters = 1L << 22;  // per call and thread: ~5-15 ms, so thread start-up is noise

template <int NACC>
__attribute__((always_inline)) inline void ymm_body(long iters, float* out) {
  __m256 acc[NACC];
  for (int i = 0; i < NACC; ++i) acc[i] = _mm256_set1_ps(1.0f + 0.001f * i);
  const __m256 mul = _mm256_set1_ps(0.999999f);
  const __m256 add = _mm256_set1_ps(1e-6f);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 32
    for (int i = 0; i < NACC; ++i) acc[i] = _mm256_fmadd_ps(acc[i], mul, add);
  }
  __m256 s = acc[0];
  for (int i = 1; i < NACC; ++i) s = _mm256_add_ps(s, acc[i]);
  _mm256_storeu_ps(out, s);
}

template <int NACC>
__attribute__((always_inline, target("avx512f"))) inline void zmm_body(long iters, float* out) {
  __m512 acc[NACC];
  for (int i = 0; i < NACC; ++i) acc[i] = _mm512_set1_ps(1.0f + 0.001f * i);
  const __m512 mul = _mm512_set1_ps(0.999999f);
  const __m512 add = _mm512_set1_ps(1e-6f);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 32
    for (int i = 0; i < NACC; ++i) acc[i] = _mm512_fmadd_ps(acc[i], mul, add);
  }
  __m512 s = acc[0];
  for (int i = 1; i < NACC; ++i) s = _mm512_add_ps(s, acc[i]);
  _mm512_storeu_ps(out, s);
}

}  // namespace

#define EMBER_BENCH_PEAK(NACC)                                                                    \
  extern "C" __attribute__((noinline)) void peak_ymm_##NACC(long iters, float* out) {             \
    ymm_body<NACC>(iters, out);                                                                   \
  }                                                                                               \
  extern "C"                                                                                      \
      __attribute__((noinline, target("avx512f"))) void peak_zmm_##NACC(long iters, float* out) { \
    zmm_body<NACC>(iters, out);                                                                   \
  }
EMBER_BENCH_PEAK(8)
EMBER_BENCH_PEAK(12)
EMBER_BENCH_PEAK(16)
EMBER_BENCH_PEAK(24)
#undef EMBER_BENCH_PEAK

namespace {

using Kernel = void (*)(long, float*);

void peak(bool zmm, int threads, const std::string& cas) {
  const int lanes = zmm ? 16 : 8;
  const struct {
    int nacc;
    Kernel k;
  } kernels[] = {{8, zmm ? peak_zmm_8 : peak_ymm_8},
                 {12, zmm ? peak_zmm_12 : peak_ymm_12},
                 {16, zmm ? peak_zmm_16 : peak_ymm_16},
                 {24, zmm ? peak_zmm_24 : peak_ymm_24}};
  for (const auto& [nacc, k] : kernels) {
    const bench::Tag tag{"hwlimits", cas + "_nacc" + std::to_string(nacc), std::to_string(threads),
                         "hw"};
    if (zmm && !__builtin_cpu_supports("avx512f")) {
      bench::print_na(tag, "cpu_lacks_avx512f");
      continue;
    }
    alignas(64) float sink[2][16];
    auto call = [&, k = k] {
      if (threads == 1) {
        k(kIters, sink[0]);
      } else {
        std::thread t0(k, kIters, sink[0]);
        std::thread t1(k, kIters, sink[1]);
        t0.join();
        t1.join();
      }
      bench::clobber_memory();
    };
    const double flop = 2.0 * lanes * nacc * double(kIters) * threads;
    bench::print_rate(tag, bench::measure(call), flop, 1e9, "GFLOP/s");
  }
}

void stream(bool triad, int threads, const std::string& cas) {
  const int64_t n = (int64_t{256} << 20) / sizeof(double);  // 256 MiB per array
  double* a = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
  double* b = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
  double* c = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {  // first touch by the thread that later streams the page
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
  bench::Timing t;
  double bytes;
  if (!triad) {
    bytes = 2.0 * n * sizeof(double);
    t = bench::measure_plain(
        [&] {
#pragma omp parallel for schedule(static)
          for (int64_t i = 0; i < n; ++i) c[i] = a[i];
          bench::clobber_memory();
        },
        10, 1);
  } else {
    bytes = 3.0 * n * sizeof(double);
    t = bench::measure_plain(
        [&] {
#pragma omp parallel for schedule(static)
          for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
          bench::clobber_memory();
        },
        10, 1);
  }
  bench::print_rate(bench::Tag{"hwlimits", cas, std::to_string(threads), "hw"}, t, bytes, 1e9,
                    "GB/s");
  std::free(a);
  std::free(b);
  std::free(c);
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const std::string cas = argv[1];
  const int threads = std::atoi(argv[2]);
  if (threads != 1 && threads != 2) bench::usage(argv[0], kCases);
  omp_set_num_threads(threads);
  if (cas == "peak_ymm" || cas == "peak_zmm") {
    peak(cas == "peak_zmm", threads, cas);
  } else if (cas == "stream_copy" || cas == "stream_triad") {
    stream(cas == "stream_triad", threads, cas);
  } else {
    bench::usage(argv[0], kCases);
  }
  return 0;
}
