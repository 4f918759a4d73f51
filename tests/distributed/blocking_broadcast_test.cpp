// The Gloo group's blocking broadcast (gloo_blocking_collectives.h): on power-of-two groups every
// dtype's broadcast runs a one-to-all on the sync-mode pairs, in one message (on 2 ranks at any
// size, on more up to 64 KiB). Each rank checks what it received against the root's values, and
// the process-wide count says whether the path ran.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "ember/distributed/distributed.h"
#include "src/distributed/gloo_blocking_collectives.h"
#include "tests/distributed/dist_values.h"
#include "tests/distributed/harness.h"

namespace dist_blocking_broadcast_test {

namespace dist = ember::distributed;
using ember::Tensor;

EMBER_DIST_WORKER(blocking_broadcast) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(60));
  const int rank = dist::get_rank(), world = dist::get_world_size();
  const char* expect_env = std::getenv("EXPECT_BLOCKING");  // "taken" or "none"
  const bool taken = expect_env && std::string(expect_env) == "taken";
  const auto before = dist::blocking_counts();
  int64_t calls = 0;  // broadcasts expected on the blocking path
  const auto expect_path = [&](const Tensor& t) {
    if (taken && (world == 2 || t.nbytes() <= (64 << 10))) ++calls;
  };
  for (int root = 0; root < world; ++root) {
    for (auto dt : dist_test::all_dtypes()) {
      for (int n : {1, 31, 1001}) {
        Tensor t = dist_test::make_tensor(dist_test::rank_values(rank, dt, n), dt);
        dist::broadcast(t, root);
        dist_test::check_values(
            t, dist_test::rank_values(root, dt, n),
            fmt::format("broadcast of {} {} from {}", n, ember::to_string(dt), root));
        expect_path(t);
      }
    }
  }
  // 6 MiB in one message, values i + root (exact in float: any element moved shows), and a
  // transposed view (staged through a contiguous copy and written back).
  const int n = 1536 * 1024 + 3;
  std::vector<double> mine(static_cast<size_t>(n)), want(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    mine[static_cast<size_t>(i)] = i + rank;
    want[static_cast<size_t>(i)] = i + world - 1;
  }
  Tensor big = dist_test::make_tensor(mine, ember::kFloat);
  dist::broadcast(big, world - 1);
  dist_test::check_values(big, want, "broadcast of 6 MiB");
  Tensor square = ember::arange(12, ember::kDouble).view({3, 4}).add(rank).t();
  dist::broadcast(square, 0);
  DIST_CHECK(ember::equal(square, ember::arange(12, ember::kDouble).view({3, 4}).t()),
             "the transposed view did not receive rank 0's values");
  expect_path(big);
  expect_path(square);
  // Queued broadcasts from alternating roots between all-reduces on the same pairs, the first a
  // large one whose tail may still sit in a socket when the all-reduce after it writes.
  std::vector<Tensor> sent, summed;
  std::vector<dist::WorkPtr> works;
  for (int i = 0; i < 6; ++i) {
    const int64_t n_i = i == 0 ? (1 << 18) : 100 + i;
    sent.push_back(ember::full({n_i}, static_cast<double>(rank * 10 + i)));
    works.push_back(dist::broadcast(sent.back(), i % world, nullptr, /*async_op=*/true));
    expect_path(sent.back());
    summed.push_back(ember::full({n_i}, static_cast<double>(rank + 1)));
    works.push_back(dist::all_reduce(summed.back(), dist::ReduceOp::SUM, nullptr, true));
  }
  for (auto& w : works) w->wait();
  for (int i = 0; i < 6; ++i) {
    DIST_CHECK(ember::equal(sent[static_cast<size_t>(i)],
                            ember::full_like(sent[static_cast<size_t>(i)], (i % world) * 10 + i)),
               "queued broadcast {} from {}", i, i % world);
    DIST_CHECK(
        ember::equal(summed[static_cast<size_t>(i)],
                     ember::full_like(summed[static_cast<size_t>(i)], world * (world + 1) / 2.0)),
        "all-reduce {} between the broadcasts", i);
  }
  // An empty tensor sends nothing, on either path.
  Tensor empty = ember::empty({0});
  dist::broadcast(empty, 0);

  const auto after = dist::blocking_counts();
  const int64_t ran = static_cast<int64_t>(after.broadcasts - before.broadcasts);
  DIST_CHECK(ran == calls, "{} broadcasts took the blocking path, expected {}", ran, calls);
  dist::destroy_process_group();
}

void expect_broadcast_job(int world, const std::string& expect, const std::string& limit = "") {
  dist_test::Launch launch{"blocking_broadcast", world};
  launch.env["EXPECT_BLOCKING"] = expect;
  if (!limit.empty()) launch.env["EMBER_GLOO_BLOCKING_MESSAGE_BYTES"] = limit;
  dist_test::expect_ranks_ok(dist_test::run_ranks(launch));
}

}  // namespace dist_blocking_broadcast_test

using dist_blocking_broadcast_test::expect_broadcast_job;

// Every dtype from every root, on 2 and 4 ranks (there the 6 MiB one takes Gloo's tree).
TEST(DistBlockingBroadcast, EveryDtypeFromEveryRoot) {
  EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES();
  expect_broadcast_job(2, "taken");
  expect_broadcast_job(4, "taken");
}

// The sync-mode contexts exist only on power-of-two groups; with the path off (limit 0) there are
// none either: Gloo's usual broadcast, the same results.
TEST(DistBlockingBroadcast, UsualPathOnThreeRanksAndWhenOff) {
  expect_broadcast_job(3, "none");
  expect_broadcast_job(2, "none", "0");
}
