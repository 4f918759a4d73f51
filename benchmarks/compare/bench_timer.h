// The timing method of shared/BENCHMARKS.md, header-only and library-agnostic, so the Ember and the
// LibTorch program of a workload time their calls with the very same code.
//
//   1. Call count: start at inner = 1 and double until one repetition (inner calls) lasts at least
//      the target (0.2 s, so a repetition lasts 0.2-0.4 s). A call that alone takes longer gives 1.
//   2. One warm-up repetition, then `reps` timed repetitions (11; 5 for GEMM n >= 1024).
//   3. Each repetition gives seconds per call (wall, steady_clock); report median, min and max.
//      A rate (GB/s, GFLOP/s) is work / time, so its min comes from the slowest repetition.
//
// Every program prints one machine-readable line per measurement:
//   RESULT <workload> <case> <threads> <lib> median=<v> min=<v> max=<v> unit=<u> inner=<n> reps=<n>
// or, when the library lacks the feature,
//   NA <workload> <case> <threads> <lib> reason=<word_or_words_joined_by_underscores>
//
// Environment: BENCH_QUICK=1 (target 0.02 s, 3 reps: a smoke test, not a measurement),
// BENCH_TARGET_S=<seconds> and BENCH_REPS=<n> override either.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace bench {

/// Keeps the compiler from deleting a computation whose result is otherwise unused.
template <class T>
inline void do_not_optimize(T const& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}
inline void clobber_memory() { asm volatile("" : : : "memory"); }

inline bool quick() {
  const char* q = std::getenv("BENCH_QUICK");
  return q != nullptr && *q != '\0' && std::strcmp(q, "0") != 0;
}

/// Seconds one repetition must last at least.
inline double target_seconds() {
  if (const char* t = std::getenv("BENCH_TARGET_S")) return std::atof(t);
  return quick() ? 0.02 : 0.2;
}

/// Timed repetitions: `normal` (11, or 5 for GEMM n >= 1024 and training steps) unless overridden.
inline int reps_or(int normal) {
  if (const char* r = std::getenv("BENCH_REPS")) return std::max(1, std::atoi(r));
  return quick() ? std::min(normal, 3) : normal;
}

struct Timing {
  double median = 0, min = 0, max = 0;  // seconds per call
  long inner = 0;
  int reps = 0;
};

inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// What a repetition does after its calls and before its clock stops: nothing on the CPU; a device
/// synchronisation for a GPU workload, whose calls only enqueue work.
struct NoFinish {
  void operator()() const {}
};

/// Times `fn()` by the method above and returns seconds per call. `finish()` runs once at the end
/// of each repetition, inside the timed span.
template <class Fn, class Finish = NoFinish>
Timing measure(Fn&& fn, int reps = 11, Finish finish = {}) {
  using Clock = std::chrono::steady_clock;
  auto run = [&](long inner) {
    const auto t0 = Clock::now();
    for (long i = 0; i < inner; ++i) fn();
    finish();
    const auto t1 = Clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
  };
  const double target = target_seconds();
  Timing t;
  t.reps = reps_or(reps);
  long inner = 1;
  run(1);  // the one call the doubling search starts after (first-touch, lazy init)
  while (run(inner) < target) inner *= 2;
  t.inner = inner;
  run(inner);  // warm-up repetition
  std::vector<double> per_call;
  for (int r = 0; r < t.reps; ++r) per_call.push_back(run(inner) / static_cast<double>(inner));
  t.median = median_of(per_call);
  t.min = *std::min_element(per_call.begin(), per_call.end());
  t.max = *std::max_element(per_call.begin(), per_call.end());
  return t;
}

/// Times a repetition given explicitly (STREAM style: `reps` single runs, first `discard` dropped).
template <class Fn>
Timing measure_plain(Fn&& fn, int reps, int discard) {
  using Clock = std::chrono::steady_clock;
  Timing t;
  t.reps = reps_or(reps);
  t.inner = 1;
  std::vector<double> per_call;
  for (int r = 0; r < t.reps + discard; ++r) {
    const auto t0 = Clock::now();
    fn();
    const auto t1 = Clock::now();
    if (r >= discard) per_call.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  t.median = median_of(per_call);
  t.min = *std::min_element(per_call.begin(), per_call.end());
  t.max = *std::max_element(per_call.begin(), per_call.end());
  return t;
}

/// Where a line is printed: workload, case, thread setting and library.
struct Tag {
  std::string workload, cas, threads, lib;
};

/// A time per call, scaled (1e6 for microseconds, 1e3 for milliseconds).
inline void print_time(const Tag& g, const Timing& t, double scale, const char* unit) {
  std::printf("RESULT %s %s %s %s median=%.6g min=%.6g max=%.6g unit=%s inner=%ld reps=%d\n",
              g.workload.c_str(), g.cas.c_str(), g.threads.c_str(), g.lib.c_str(), t.median * scale,
              t.min * scale, t.max * scale, unit, t.inner, t.reps);
  std::fflush(stdout);
}

/// A rate: `work` units per call (bytes, FLOPs) over the time, divided by `scale` (1e9 for G).
inline void print_rate(const Tag& g, const Timing& t, double work, double scale, const char* unit) {
  std::printf("RESULT %s %s %s %s median=%.6g min=%.6g max=%.6g unit=%s inner=%ld reps=%d\n",
              g.workload.c_str(), g.cas.c_str(), g.threads.c_str(), g.lib.c_str(),
              work / t.median / scale, work / t.max / scale, work / t.min / scale, unit, t.inner,
              t.reps);
  std::fflush(stdout);
}

inline void print_na(const Tag& g, const char* reason) {
  std::printf("NA %s %s %s %s reason=%s\n", g.workload.c_str(), g.cas.c_str(), g.threads.c_str(),
              g.lib.c_str(), reason);
  std::fflush(stdout);
}

/// printf into a std::string (for INFO values).
template <class... Args>
std::string format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

/// A free-form key=value line the runner passes through (checks, sizes, notes).
inline void print_info(const Tag& g, const std::string& kv) {
  std::printf("INFO %s %s %s %s %s\n", g.workload.c_str(), g.cas.c_str(), g.threads.c_str(),
              g.lib.c_str(), kv.c_str());
  std::fflush(stdout);
}

/// Thread setting from the command line: "1", "2", "lt-def" (call nothing), or for the GEMM probe
/// "a<N>b<M>" (N intra-op threads, M BLAS threads).
struct Threads {
  std::string name = "lt-def";
  int intra = 0;  // 0: leave the library default
  int blas = 0;
};

inline Threads parse_threads(const char* s) {
  Threads t;
  t.name = s;
  if (t.name == "lt-def") return t;
  int a = 0, b = 0;
  if (std::sscanf(s, "a%db%d", &a, &b) == 2) {
    t.intra = a;
    t.blas = b;
    return t;
  }
  t.intra = t.blas = std::atoi(s);
  if (t.intra <= 0) {
    std::fprintf(stderr, "bad thread setting '%s' (1, 2, lt-def or a<N>b<M>)\n", s);
    std::exit(2);
  }
  return t;
}

/// Usage check shared by the programs: `prog <case> <threads>`, `prog --list`.
inline bool wants_list(int argc, char** argv) {
  return argc >= 2 && std::strcmp(argv[1], "--list") == 0;
}

[[noreturn]] inline void usage(const char* prog, const std::vector<std::string>& cases) {
  std::fprintf(stderr, "usage: %s <case> <threads: 1|2|lt-def>\ncases:", prog);
  for (const auto& c : cases) std::fprintf(stderr, " %s", c.c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

inline void list(const std::vector<std::string>& cases) {
  for (const auto& c : cases) std::printf("%s\n", c.c_str());
}

}  // namespace bench
