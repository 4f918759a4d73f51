// BENCHMARKS-style collectives workload (issue #19): all_reduce (SUM, float32), broadcast (from
// rank 0, float32) and barrier between 2 ranks on loopback, over Gloo's TCP transport, timed the
// same way for Ember and LibTorch's c10d. The program forks itself into the two ranks (rank 0 the
// parent, which prints); both make the same fixed number of calls (collectives must pair up), so
// the adaptive timer of bench_timer.h is not used: 20 warm-up calls, then 7 repetitions of `inner`
// calls with a barrier before each, median per call.
//   allreduce_4B      1 float: the latency of one collective
//   allreduce_64KiB   16384 floats
//   allreduce_721KiB  184586 floats: the gradients of the §5(b) LeNet step (DDP's one bucket)
//   allreduce_4MiB    1048576 floats
//   broadcast_4B, broadcast_721KiB, broadcast_4MiB: the same sizes from rank 0 (DDP broadcasts
//                     the parameters at construction and the buffers before each forward)
//   barrier
// The check: every element of the result equals 1 + 2 (rank r contributes r + 1); for broadcast,
// rank 0's 1.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timer.h"

namespace bench_coll {

inline const std::vector<std::string>& cases() {
  static const std::vector<std::string> c = {
      "allreduce_4B", "allreduce_64KiB",  "allreduce_721KiB", "allreduce_4MiB",
      "broadcast_4B", "broadcast_721KiB", "broadcast_4MiB",   "barrier"};
  return c;
}

/// `prog <case> <threads>`, or `prog --list` (prints the cases and exits).
struct Args {
  std::string cas;
  bench::Threads threads;
};
inline Args parse_args(int argc, char** argv) {
  const auto& c = cases();
  if (bench::wants_list(argc, argv)) {
    bench::list(c);
    std::exit(0);
  }
  if (argc != 3) bench::usage(argv[0], c);
  Args a{argv[1], bench::parse_threads(argv[2])};
  if (std::find(c.begin(), c.end(), a.cas) == c.end()) bench::usage(argv[0], c);
  return a;
}

/// Elements of the all-reduced tensor (0 for the barrier) and calls per repetition.
struct CaseSize {
  long elements;
  long inner;
};
inline CaseSize case_size(const std::string& c) {
  if (c == "allreduce_4B" || c == "broadcast_4B") return {1, 400};
  if (c == "allreduce_64KiB") return {16384, 200};
  if (c == "allreduce_721KiB" || c == "broadcast_721KiB") return {184586, 60};
  if (c == "allreduce_4MiB" || c == "broadcast_4MiB") return {1048576, 20};
  return {0, 400};
}

/// Whether the case is a broadcast (else an all-reduce, or the barrier).
inline bool is_broadcast(const std::string& c) { return c.rfind("broadcast_", 0) == 0; }

/// A port free on 127.0.0.1 now (the master binds it a moment later).
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

/// This process's place in the job: rank 0 (the parent) or 1 (the forked child), and the store's
/// port, picked before the fork so both ranks know it.
struct Job {
  int rank = 0;
  int port = 0;
  pid_t child = 0;  // rank 0: rank 1's pid
};
inline Job fork_ranks() {
  Job job;
  job.port = free_port();
  job.child = ::fork();
  if (job.child < 0) {
    std::perror("fork");
    std::exit(1);
  }
  job.rank = job.child == 0 ? 1 : 0;
  return job;
}

/// Rank 0 waits for rank 1: its exit status (0 when it succeeded).
inline int join_rank1(pid_t child) {
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/// Times `call` as described above; `barrier` synchronises the ranks between repetitions.
template <class Call, class Barrier>
bench::Timing time_calls(long inner, Call&& call, Barrier&& barrier) {
  for (int i = 0; i < 20; ++i) call();
  bench::Timing t;
  t.inner = inner;
  t.reps = 7;
  std::vector<double> per_call;
  for (int r = 0; r < t.reps; ++r) {
    barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < inner; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double>(t1 - t0).count() / inner);
  }
  t.median = bench::median_of(per_call);
  t.min = *std::min_element(per_call.begin(), per_call.end());
  t.max = *std::max_element(per_call.begin(), per_call.end());
  return t;
}

}  // namespace bench_coll
