// The Gloo group's blocking all-reduce (gloo_blocking_collectives.h): float, double, int32 and
// int64 all-reduces of power-of-two groups run on Gloo's sync-mode pairs, in pieces whose
// messages fit a socket's send buffer. Each rank checks the results against the reduction
// computed locally, and the process-wide counts say whether (and in how many pieces) the path
// ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ember/distributed/distributed.h"
#include "src/distributed/gloo_blocking_collectives.h"
#include "tests/distributed/dist_values.h"
#include "tests/distributed/harness.h"

namespace dist_blocking_test {

namespace dist = ember::distributed;
using dist::ReduceOp;
using ember::Tensor;

// The element counts each case reduces: a single element, one short of a 32-element piece,
// and many pieces with a partial last one.
const std::vector<int> kSizes = {1, 31, 1001};

// Pieces of `n` elements of `element_size` bytes under a message bound of `limit` bytes on
// `world` ranks: a piece is twice the elements of one message, rounded down to a multiple of
// the group.
int64_t pieces_at(int64_t limit, int64_t world, int64_t n, int64_t element_size) {
  const int64_t piece = std::max(world, limit / element_size * 2 / world * world);
  return (n + piece - 1) / piece;
}

EMBER_DIST_WORKER(blocking_allreduce) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(60));
  const int rank = dist::get_rank(), world = dist::get_world_size();
  // "pieces:L" (the path, L-byte messages), "taken" (the path, default limit) or "none"
  const char* expect_env = std::getenv("EXPECT_BLOCKING");
  const std::string expect = expect_env ? expect_env : "";
  const bool counted = expect.rfind("pieces:", 0) == 0;
  const int64_t limit = counted ? std::stoll(expect.substr(7)) : 0;
  const auto before = dist::blocking_counts();
  int64_t calls = 0, pieces = 0;
  for (auto dt : {ember::kFloat, ember::kDouble, ember::kInt, ember::kLong}) {
    std::vector<ReduceOp> ops = {ReduceOp::SUM, ReduceOp::PRODUCT, ReduceOp::MIN, ReduceOp::MAX};
    if (ember::is_floating_point(dt)) ops.push_back(ReduceOp::AVG);
    for (ReduceOp op : ops) {
      for (int n : kSizes) {
        std::vector<std::vector<double>> every;
        for (int r = 0; r < world; ++r) every.push_back(dist_test::rank_values(r, dt, n));
        Tensor t = dist_test::make_tensor(every[static_cast<size_t>(rank)], dt);
        dist::all_reduce(t, op);
        dist_test::check_values(t, dist_test::reduce_values(every, op, dt),
                                fmt::format("all_reduce {} {} of {}", dist::reduce_op_name(op),
                                            ember::to_string(dt), n));
        ++calls;
        pieces += pieces_at(limit, world, n, ember::element_size(dt));
      }
    }
  }
  // NaN wins MIN and MAX, as on the other path (torch.minimum / maximum).
  for (ReduceOp op : {ReduceOp::MIN, ReduceOp::MAX}) {
    Tensor t = ember::full({40}, static_cast<double>(rank));
    if (rank == 1) t.data_ptr<float>()[37] = std::numeric_limits<float>::quiet_NaN();
    dist::all_reduce(t, op);
    DIST_CHECK(std::isnan(t.data_ptr<float>()[37]), "{}: the NaN was lost",
               dist::reduce_op_name(op));
    DIST_CHECK(t.data_ptr<float>()[36] == (op == ReduceOp::MIN ? 0.f : world - 1.f),
               "{}: element 36 is {}", dist::reduce_op_name(op), t.data_ptr<float>()[36]);
    ++calls;
    pieces += pieces_at(limit, world, 40, 4);
  }
  // At the default limit: a tensor larger than a piece (1 MiB messages at most: 2 MiB pieces).
  if (!counted) {
    // Values i + rank (exact in float): an element moved by any distance shows.
    const int n = 1536 * 1024 + 3;
    std::vector<double> mine(static_cast<size_t>(n)), want(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      mine[static_cast<size_t>(i)] = i + rank;
      want[static_cast<size_t>(i)] = double(world) * i + world * (world - 1) / 2;
    }
    Tensor t = dist_test::make_tensor(mine, ember::kFloat);
    dist::all_reduce(t, ReduceOp::SUM);
    dist_test::check_values(t, want, "all_reduce of 6 MiB");
    ++calls;
  }
  // Other dtypes keep Gloo's usual path.
  Tensor bytes =
      dist_test::make_tensor(dist_test::rank_values(rank, ember::kChar, 9), ember::kChar);
  dist::all_reduce(bytes);

  const auto after = dist::blocking_counts();
  const int64_t ran = static_cast<int64_t>(after.allreduces - before.allreduces);
  const int64_t ran_pieces = static_cast<int64_t>(after.pieces - before.pieces);
  if (counted) {
    DIST_CHECK(ran == calls, "{} of {} all-reduces took the blocking path", ran, calls);
    DIST_CHECK(ran_pieces == pieces, "{} pieces, expected {}", ran_pieces, pieces);
  } else if (expect == "taken") {
    DIST_CHECK(ran == calls, "{} of {} all-reduces took the blocking path", ran, calls);
    DIST_CHECK(ran_pieces > ran, "{} pieces for {} all-reduces: the 6 MiB one was not cut",
               ran_pieces, ran);
  } else {
    DIST_CHECK(ran == 0, "{} all-reduces took the blocking path, expected none", ran);
  }
  dist::destroy_process_group();
}

constexpr const char* kLimitVar = "EMBER_GLOO_BLOCKING_MESSAGE_BYTES";

// Runs the worker on `world` ranks expecting `expect`, with the message limit set for every
// rank (`all`, unless empty) and for some (`per_rank`).
void expect_job(int world, const std::string& expect, const std::string& all = "",
                const std::map<int, std::string>& per_rank = {}) {
  dist_test::Launch launch{"blocking_allreduce", world};
  launch.env["EXPECT_BLOCKING"] = expect;
  if (!all.empty()) launch.env[kLimitVar] = all;
  for (const auto& [rank, limit] : per_rank) launch.rank_env[rank][kLimitVar] = limit;
  dist_test::expect_ranks_ok(dist_test::run_ranks(launch));
}

// Small pieces (64-byte messages), so a few elements already take many: every op, dtype and
// size through the blocking path.
TEST(DistBlockingAllreduce, EveryOpInPiecesOnTwoRanks) {
  EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES();
  expect_job(2, "pieces:64", "64");
}

// Four ranks: two exchange steps per phase, pieces rounded down to a multiple of the group (72
// bytes: 18 doubles -> 16), tensors smaller than the group.
TEST(DistBlockingAllreduce, EveryOpInPiecesOnFourRanks) {
  EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES();
  expect_job(4, "pieces:72", "72");
}

// The default limit (the smallest wmem_max and 1 MiB): a 6 MiB tensor goes in pieces.
TEST(DistBlockingAllreduce, DefaultLimitOnTwoAndFourRanks) {
  EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES();
  expect_job(2, "taken");
  expect_job(4, "taken");
}

// The group takes its smallest limit: rank 1 allows 128-byte messages, rank 0 only 64, and
// both cut the pieces rank 0's way (else their calls would not pair up).
TEST(DistBlockingAllreduce, TheGroupTakesTheSmallestLimit) {
  EMBER_SKIP_WITHOUT_BLOCKING_COLLECTIVES();
  expect_job(2, "pieces:64", "", {{0, "64"}, {1, "128"}});
}

// Halving-doubling bounds its messages only on power-of-two groups.
TEST(DistBlockingAllreduce, NotOnThreeRanks) { expect_job(3, "none"); }

// One rank turning the path off turns it off for the group.
TEST(DistBlockingAllreduce, OffOnOneRankIsOffForTheGroup) { expect_job(2, "none", "", {{1, "0"}}); }

// A setting that is not a byte count on one rank: every rank fails to create the group, naming
// it (not the others later, at their first collective).
EMBER_DIST_WORKER(bad_limit_setting) {
  try {
    dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(20));
  } catch (const ember::Error& e) {
    std::cout << "init failed: " << e.what() << std::endl;
    std::_Exit(3);
  }
  throw std::runtime_error("init_process_group succeeded with a bad setting on rank 1");
}

TEST(DistBlockingAllreduce, ABadSettingOnOneRankFailsEveryRank) {
  dist_test::Launch launch{"bad_limit_setting", 2};
  launch.rank_env[1][kLimitVar] = "-1";
  const auto exits = dist_test::run_ranks(launch);
  for (int r = 0; r < 2; ++r) {
    const auto& exit = exits[static_cast<size_t>(r)];
    EXPECT_EQ(exit.code, 3) << "rank " << r << ":\n" << exit.output;
    EXPECT_NE(exit.output.find("rank 1's EMBER_GLOO_BLOCKING_MESSAGE_BYTES is not a byte count"),
              std::string::npos)
        << "rank " << r << ":\n"
        << exit.output;
  }
}

}  // namespace dist_blocking_test
