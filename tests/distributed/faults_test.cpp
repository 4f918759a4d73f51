// Faults: a rank that dies or hangs, a wrong world size, a rank that never starts and a port in
// use each end in a clear error within the configured timeout, never a hang.
#include <gtest/gtest.h>

#include <unistd.h>

#include <iostream>
#include <thread>
#include <vector>

#include "ember/distributed/distributed.h"
#include "tests/distributed/harness.h"

namespace dist_faults_test {

namespace dist = ember::distributed;
using Clock = std::chrono::steady_clock;

constexpr int kExpectedFailure = 3;  // a worker that saw the error it was meant to see

// Runs fn, which must fail with a DistError within `limit`; prints the error and exits with
// kExpectedFailure so the parent can tell it from a crash.
template <class Fn>
[[noreturn]] void expect_dist_error_within(Fn&& fn, std::chrono::seconds limit) {
  const auto start = Clock::now();
  try {
    fn();
  } catch (const dist::DistError& e) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    std::cout << "error after " << ms.count() << " ms: " << e.what() << std::endl;
    DIST_CHECK(Clock::now() - start < limit, "took {} ms, limit {} s", ms.count(), limit.count());
    std::_Exit(kExpectedFailure);
  }
  throw std::runtime_error("expected a DistError");
}

EMBER_DIST_WORKER(peer_dies) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(5));
  dist::barrier();
  if (dist::get_rank() == 1) std::_Exit(0);  // gone without a word
  expect_dist_error_within(
      [] {
        for (int i = 0; i < 100; ++i) {
          auto t = ember::ones({1 << 16});
          dist::all_reduce(t);
        }
      },
      std::chrono::seconds(8));
}

EMBER_DIST_WORKER(peer_hangs) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(2));
  dist::barrier();
  if (dist::get_rank() == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(6));  // stops calling collectives
    std::_Exit(0);
  }
  expect_dist_error_within(
      [] {
        auto t = ember::ones({16});
        dist::all_reduce(t);
      },
      std::chrono::seconds(5));
}

// Three collectives queued behind one that times out: the group is unusable after the first
// failure, so the other two fail at once (not a timeout each), and so does a later call.
EMBER_DIST_WORKER(peer_hangs_with_a_queue) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(2));
  dist::barrier();
  if (dist::get_rank() == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(4));  // past rank 0's 2 s timeout
    std::_Exit(0);
  }
  const auto start = Clock::now();
  std::vector<dist::WorkPtr> works;
  std::vector<ember::Tensor> tensors;
  for (int i = 0; i < 3; ++i) {
    tensors.push_back(ember::ones({16}));
    works.push_back(dist::all_reduce(tensors.back(), dist::ReduceOp::SUM, nullptr, true));
  }
  int failed = 0, unusable = 0;
  for (auto& w : works) {
    try {
      w->wait();
    } catch (const dist::DistError& e) {
      ++failed;
      unusable +=
          std::string(e.what()).find("unusable after an earlier failure") != std::string::npos;
    }
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  DIST_CHECK(failed == 3 && unusable == 2, "{} failed, {} as unusable", failed, unusable);
  DIST_CHECK(ms < std::chrono::milliseconds(3500), "three queued collectives took {} ms",
             ms.count());
  // Point to point too: rank 1 still lives (it sleeps), so a send would otherwise wait out
  // the 2 s timeout.
  try {
    dist::send(ember::ones({4}), 1);
    DIST_CHECK(false, "a send on the broken group succeeded");
  } catch (const dist::DistError& e) {
    const auto send_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start - ms);
    DIST_CHECK(std::string(e.what()).find("unusable after an earlier failure") != std::string::npos,
               "send: {}", e.what());
    DIST_CHECK(send_ms < std::chrono::milliseconds(1000), "send took {} ms", send_ms.count());
  }
  expect_dist_error_within([] { dist::barrier(); }, std::chrono::seconds(1));
}

// Calls that do not pair up: rank 0's first all-reduce is empty (nothing to send), rank 1's is
// not. Each call meets its peer's under its own tag, so both ranks fail at once instead of
// pairing rank 0's second call with rank 1's first and going on with the wrong sums.
EMBER_DIST_WORKER(mismatched_all_reduce) {
  // A long timeout and a short limit: failing by timing out would not pass.
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(30));
  dist::barrier();
  const int rank = dist::get_rank();
  expect_dist_error_within(
      [rank] {
        auto first = ember::ones({rank == 0 ? 0 : 16});
        dist::all_reduce(first);
        for (int i = 0; i < 2; ++i) {
          auto next = ember::ones({16});
          dist::all_reduce(next);
        }
      },
      std::chrono::seconds(5));
}

// Broadcasts that name different roots: each rank waits for the other's data, and reads the
// other's clear-to-send. On the blocking path that message is for a slot no call registered, so
// both fail at once (Gloo's own one-to-all took it as the data and went on, 4 bytes zeroed).
EMBER_DIST_WORKER(mismatched_broadcast_roots) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(30));
  dist::barrier();
  const int rank = dist::get_rank();
  expect_dist_error_within(
      [rank] {
        auto t = ember::ones({16});
        dist::broadcast(t, 1 - rank);
      },
      std::chrono::seconds(5));
}

EMBER_DIST_WORKER(init_expecting_failure) {
  expect_dist_error_within(
      [] { dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(2)); },
      std::chrono::seconds(8));
}

void expect_failed_with(const dist_test::RankExit& e, int rank, const std::string& part) {
  EXPECT_FALSE(e.timed_out) << "rank " << rank << " hung:\n" << e.output;
  EXPECT_EQ(e.code, kExpectedFailure) << "rank " << rank << ":\n" << e.output;
  EXPECT_NE(e.output.find(part), std::string::npos) << "rank " << rank << ":\n" << e.output;
}

TEST(DistFaults, APeerThatDiesFailsTheCollective) {
  auto exits = dist_test::run_ranks({"peer_dies", 2, std::chrono::seconds(30)});
  EXPECT_EQ(exits[1].code, 0) << exits[1].output;
  expect_failed_with(exits[0], 0, "all_reduce (Gloo, rank 0 of 2) failed");
}

TEST(DistFaults, APeerThatHangsTimesTheCollectiveOut) {
  auto exits = dist_test::run_ranks({"peer_hangs", 2, std::chrono::seconds(30)});
  expect_failed_with(exits[0], 0, "all_reduce (Gloo, rank 0 of 2) failed");
  EXPECT_EQ(exits[1].code, 0) << exits[1].output;
}

TEST(DistFaults, CallsThatDoNotPairUpFailOnEveryRank) {
  EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES();
  auto exits = dist_test::run_ranks({"mismatched_all_reduce", 2, std::chrono::seconds(30)});
  expect_failed_with(exits[0], 0, "all_reduce (Gloo, rank 0 of 2) failed");
  expect_failed_with(exits[1], 1, "all_reduce (Gloo, rank 1 of 2) failed");
  // At least the rank that read the other's message says what went wrong.
  EXPECT_TRUE(exits[0].output.find("do not pair up") != std::string::npos ||
              exits[1].output.find("do not pair up") != std::string::npos)
      << exits[0].output << "\n"
      << exits[1].output;
}

TEST(DistFaults, BroadcastsNamingDifferentRootsFailOnEveryRank) {
  EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES();
  auto exits = dist_test::run_ranks({"mismatched_broadcast_roots", 2, std::chrono::seconds(30)});
  expect_failed_with(exits[0], 0, "do not pair up");
  expect_failed_with(exits[1], 1, "do not pair up");
}

TEST(DistFaults, AFailureMakesTheGroupFailFastAfterwards) {
  auto exits = dist_test::run_ranks({"peer_hangs_with_a_queue", 2, std::chrono::seconds(30)});
  expect_failed_with(exits[0], 0, "unusable after an earlier failure");
  EXPECT_EQ(exits[1].code, 0) << exits[1].output;
}

TEST(DistFaults, WrongWorldSizeIsAClearError) {
  dist_test::Launch launch{"init_expecting_failure", 2, std::chrono::seconds(30)};
  launch.rank_env[1] = {{"WORLD_SIZE", "3"}};
  auto exits = dist_test::run_ranks(launch);
  expect_failed_with(exits[1], 1, "rank 1 was given world_size 3 but rank 0 has 2");
  expect_failed_with(exits[0], 0, "rank 0 of 2");
}

TEST(DistFaults, ARankThatNeverStartsIsATimeout) {
  dist_test::Launch launch{"init_expecting_failure", 2, std::chrono::seconds(30)};
  launch.ranks = {0};
  auto exits = dist_test::run_ranks(launch);
  expect_failed_with(exits[0], 0, "timed out");
}

TEST(DistFaults, APortInUseIsAClearError) {
  // Hold a listening socket on a port, then ask rank 0 to serve the store there.
  int port = 0;
  const int fd = dist_test::listen_loopback(4, &port);
  ASSERT_GE(fd, 0);
  dist_test::Launch launch{"init_expecting_failure", 1, std::chrono::seconds(30)};
  launch.env = {{"MASTER_PORT", std::to_string(port)}};
  auto exits = dist_test::run_ranks(launch);
  ::close(fd);
  expect_failed_with(exits[0], 0, fmt::format("cannot listen on 127.0.0.1:{}", port));
}

}  // namespace dist_faults_test
