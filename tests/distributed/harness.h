// Multi-process tests: a test starts N copies of this test program, each running one named
// worker as one rank of a job on loopback (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set as
// ember-run sets them), and checks how each copy ended. Workers are plain functions that throw
// on a failed check; main() runs the worker named by --ember-dist-worker=NAME instead of the
// tests.
#pragma once

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace dist_test {

using WorkerFn = void (*)();
/// Registers a worker under `name` (use EMBER_DIST_WORKER).
bool register_worker(const char* name, WorkerFn fn);

#define EMBER_DIST_WORKER(name)                                 \
  static void dist_worker_##name();                             \
  static const bool dist_worker_registered_##name =             \
      ::dist_test::register_worker(#name, &dist_worker_##name); \
  static void dist_worker_##name()

/// Runs the worker named by `arg` (--ember-dist-worker=NAME) and returns the exit code.
int run_worker_from_arg(const std::string& arg);

struct RankExit {
  int code = -1;           // exit status, or -1 when killed
  bool timed_out = false;  // killed by the harness at the deadline
  std::string output;      // what the rank printed (stdout and stderr)
};

struct Launch {
  Launch(std::string worker_name, int ranks_in_job,
         std::chrono::seconds kill_after = std::chrono::seconds(60))
      : worker(std::move(worker_name)), world_size(ranks_in_job), deadline(kill_after) {}
  std::string worker;
  int world_size;
  std::chrono::seconds deadline;
  /// Extra environment for every rank, and per rank (applied after).
  std::map<std::string, std::string> env;
  std::map<int, std::map<std::string, std::string>> rank_env;
  /// Ranks to start (default: all of 0..world_size-1).
  std::vector<int> ranks;
};

/// Starts the ranks, waits for all of them (killing the ones still running at the deadline).
std::vector<RankExit> run_ranks(const Launch& launch);
/// Adds a test failure for every rank that hung or exited with an error, with its output.
void expect_ranks_ok(const std::vector<RankExit>& exits);
/// A socket bound to a free loopback port (*port), listening with `backlog` unless it is
/// negative; -1 on failure. The caller closes it.
int listen_loopback(int backlog, int* port);
/// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port();

/// Whether the Gloo group's blocking collectives can run on this machine: the library's own
/// bound on a message here (src/distributed/gloo_blocking_collectives.h, from net.core.wmem_max,
/// tcp_notsent_lowat and EMBER_GLOO_BLOCKING_MESSAGE_BYTES) is not 0.
bool blocking_collectives_possible();

/// Skips the calling test where the blocking collectives cannot run (it expects them).
#define EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES()                                             \
  do {                                                                                        \
    if (!dist_test::blocking_collectives_possible())                                          \
      GTEST_SKIP() << "no blocking collectives here (net.core.wmem_max unreadable or small, " \
                      "or EMBER_GLOO_BLOCKING_MESSAGE_BYTES=0)";                              \
  } while (0)

/// Worker side: this rank and the job's size, from the environment.
int env_rank();
int env_world_size();

/// A failed check in a worker.
#define DIST_CHECK(cond, ...)                                                                 \
  do {                                                                                        \
    if (!(cond))                                                                              \
      throw std::runtime_error(fmt::format("{}:{}: check failed: {}: {}", __FILE__, __LINE__, \
                                           #cond, fmt::format(__VA_ARGS__)));                 \
  } while (0)

}  // namespace dist_test
