// Every collective of the Gloo backend, every dtype, 2 and 3 ranks: each rank checks the result
// against the reduction of the ranks' inputs computed locally.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "ember/distributed/distributed.h"
#include "tests/distributed/dist_values.h"
#include "tests/distributed/harness.h"

namespace dist_collectives_test {

namespace dist = ember::distributed;
using dist::ReduceOp;
using dist_test::check_values;
using dist_test::make_tensor;
using dist_test::rank_values;
using ember::Tensor;

constexpr int kN = 7;

std::vector<std::vector<double>> every_rank(int world, ember::ScalarType dt, int shift = 0) {
  std::vector<std::vector<double>> v;
  for (int r = 0; r < world; ++r) v.push_back(rank_values(r, dt, kN, shift));
  return v;
}

void run_all_reduce(int rank, int world, ember::ScalarType dt) {
  std::vector<ReduceOp> ops = {ReduceOp::SUM, ReduceOp::PRODUCT, ReduceOp::MIN, ReduceOp::MAX};
  if (ember::is_floating_point(dt)) ops.push_back(ReduceOp::AVG);
  for (ReduceOp op : ops) {
    Tensor t = make_tensor(rank_values(rank, dt, kN), dt);
    dist::all_reduce(t, op);
    const bool reduced = dt == ember::kHalf || dt == ember::kBFloat16;
    check_values(t, dist_test::reduce_values(every_rank(world, dt), op, dt),
                 fmt::format("all_reduce {} {}", dist::reduce_op_name(op), ember::to_string(dt)),
                 op == ReduceOp::AVG && reduced ? 1e-2 : 0);
  }
  // A non-contiguous tensor (the transpose of two stacked copies): both columns reduce.
  Tensor base = make_tensor(rank_values(rank, dt, kN), dt);
  Tensor pair = ember::stack({base, base}).t();
  DIST_CHECK(!pair.is_contiguous(), "the test tensor should be non-contiguous");
  dist::all_reduce(pair, ReduceOp::SUM);
  auto want = dist_test::reduce_values(every_rank(world, dt), ReduceOp::SUM, dt);
  check_values(pair.select(1, 0), want, "all_reduce non-contiguous column 0");
  check_values(pair.select(1, 1), want, "all_reduce non-contiguous column 1");
}

void run_rooted(int rank, int world, ember::ScalarType dt) {
  const std::string d = ember::to_string(dt);
  // broadcast from the last rank
  Tensor b = make_tensor(rank_values(rank, dt, kN), dt);
  dist::broadcast(b, world - 1);
  check_values(b, rank_values(world - 1, dt, kN), "broadcast " + d);
  // reduce to rank 0: the others keep their input
  Tensor r = make_tensor(rank_values(rank, dt, kN), dt);
  dist::reduce(r, 0, ReduceOp::MAX);
  check_values(r,
               rank == 0 ? dist_test::reduce_values(every_rank(world, dt), ReduceOp::MAX, dt)
                         : rank_values(rank, dt, kN),
               "reduce " + d);
  // gather to rank 1
  const int gdst = 1 % world;
  std::vector<Tensor> glist;
  if (rank == gdst)
    for (int q = 0; q < world; ++q)
      glist.push_back(ember::zeros({kN}, ember::TensorOptions().dtype(dt)));
  dist::gather(make_tensor(rank_values(rank, dt, kN), dt), glist, gdst);
  for (int q = 0; q < static_cast<int>(glist.size()); ++q)
    check_values(glist[static_cast<size_t>(q)], rank_values(q, dt, kN), "gather " + d);
  // scatter from rank 0: rank q receives rank_values(q, shift 1)
  std::vector<Tensor> slist;
  if (rank == 0)
    for (int q = 0; q < world; ++q) slist.push_back(make_tensor(rank_values(q, dt, kN, 1), dt));
  Tensor s = ember::zeros({kN}, ember::TensorOptions().dtype(dt));
  dist::scatter(s, slist, 0);
  check_values(s, rank_values(rank, dt, kN, 1), "scatter " + d);
}

void run_gathers(int rank, int world, ember::ScalarType dt) {
  const std::string d = ember::to_string(dt);
  Tensor in = make_tensor(rank_values(rank, dt, kN), dt);
  std::vector<Tensor> outs;
  for (int q = 0; q < world; ++q)
    outs.push_back(ember::zeros({kN}, ember::TensorOptions().dtype(dt)));
  dist::all_gather(outs, in);
  for (int q = 0; q < world; ++q)
    check_values(outs[static_cast<size_t>(q)], rank_values(q, dt, kN), "all_gather " + d);

  Tensor flat = ember::zeros({world * kN}, ember::TensorOptions().dtype(dt));
  dist::all_gather_into_tensor(flat, in);
  for (int q = 0; q < world; ++q)
    check_values(flat.narrow(0, q * kN, kN), rank_values(q, dt, kN), "all_gather_into_tensor " + d);

  // reduce_scatter: input_list[j] = this rank's values shifted by j; rank r gets op over the
  // ranks' input_list[r].
  std::vector<Tensor> inputs;
  for (int j = 0; j < world; ++j) inputs.push_back(make_tensor(rank_values(rank, dt, kN, j), dt));
  Tensor rs = ember::zeros({kN}, ember::TensorOptions().dtype(dt));
  dist::reduce_scatter(rs, inputs, ReduceOp::SUM);
  check_values(rs, dist_test::reduce_values(every_rank(world, dt, rank), ReduceOp::SUM, dt),
               "reduce_scatter " + d);

  // all_to_all: rank q's input_list[j] = rank_values(q, shift j); rank r gets [q] = (q, shift r).
  std::vector<Tensor> a2a_out;
  for (int q = 0; q < world; ++q)
    a2a_out.push_back(ember::zeros({kN}, ember::TensorOptions().dtype(dt)));
  dist::all_to_all(a2a_out, inputs);
  for (int q = 0; q < world; ++q)
    check_values(a2a_out[static_cast<size_t>(q)], rank_values(q, dt, kN, rank), "all_to_all " + d);
}

void run_point_to_point(int rank, int world) {
  // A ring: each rank sends to the next and receives from the previous, with a tag.
  const int next = (rank + 1) % world, prev = (rank + world - 1) % world;
  Tensor out = make_tensor(rank_values(rank, ember::kFloat, kN), ember::kFloat);
  Tensor in = ember::zeros({kN});
  auto s = dist::isend(out, next, nullptr, 7);
  auto r = dist::irecv(in, prev, nullptr, 7);
  r->wait();
  s->wait();
  check_values(in, rank_values(prev, ember::kFloat, kN), "send/recv ring");
}

EMBER_DIST_WORKER(collectives) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(60));
  const int rank = dist::get_rank(), world = dist::get_world_size();
  DIST_CHECK(rank == dist_test::env_rank(), "get_rank {}", rank);
  DIST_CHECK(world == dist_test::env_world_size(), "get_world_size {}", world);
  DIST_CHECK(dist::get_backend() == "gloo", "backend {}", dist::get_backend());
  for (auto dt : dist_test::all_dtypes()) {
    run_all_reduce(rank, world, dt);
    run_rooted(rank, world, dt);
    run_gathers(rank, world, dt);
  }
  run_point_to_point(rank, world);

  // reduce_scatter and all_to_all on 2-D tensors (the flat staging must reshape them).
  {
    std::vector<Tensor> in2, out2;
    for (int j = 0; j < world; ++j) {
      in2.push_back(ember::full({2, 3}, static_cast<double>(rank + 10 * j)));
      out2.push_back(ember::zeros({2, 3}));
    }
    Tensor rs = ember::zeros({2, 3});
    dist::reduce_scatter(rs, in2, ReduceOp::SUM);
    double want = 0;
    for (int q = 0; q < world; ++q) want += q + 10 * rank;
    check_values(rs.reshape({-1}), std::vector<double>(6, want), "reduce_scatter 2-D");
    dist::all_to_all(out2, in2);
    for (int q = 0; q < world; ++q)
      check_values(out2[static_cast<size_t>(q)].reshape({-1}),
                   std::vector<double>(6, q + 10.0 * rank), "all_to_all 2-D");
  }

  // Asynchronous: the Work completes, and result() holds the tensor.
  Tensor a = ember::ones({1000}) * static_cast<float>(rank + 1);
  auto work = dist::all_reduce(a, ReduceOp::SUM, nullptr, /*async_op=*/true);
  work->wait();
  DIST_CHECK(work->is_completed() && work->is_success(), "async all_reduce not completed");
  DIST_CHECK(work->result().size() == 1, "result() has {} tensors", work->result().size());
  check_values(a.narrow(0, 0, 1), {world * (world + 1) / 2.0}, "async all_reduce");

  // Zero-size tensors go through every collective without communicating.
  Tensor z = ember::zeros({0});
  dist::all_reduce(z);
  dist::broadcast(z, 0);
  std::vector<Tensor> zl(static_cast<size_t>(world), ember::zeros({0}));
  dist::all_gather(zl, z);
  dist::barrier();
  dist::destroy_process_group();
  DIST_CHECK(!dist::is_initialized(), "still initialized after destroy_process_group");
}

TEST(DistCollectives, EveryOpAndDtypeOnTwoRanks) {
  dist_test::expect_ranks_ok(dist_test::run_ranks({"collectives", 2}));
}

// The sockets this process holds open (the store's and Gloo's).
int open_sockets() {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    const auto target = std::filesystem::read_symlink(entry.path(), error);
    count += !error && target.string().rfind("socket:", 0) == 0;
  }
  return count;
}

EMBER_DIST_WORKER(socket_count) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(60));
  Tensor t = ember::ones({4});
  dist::all_reduce(t);
  std::cout << "open sockets: " << open_sockets() << std::endl;
  dist::destroy_process_group();
}

// Rank 0's count of open sockets, from its output.
int socket_count_with(const std::string& interfaces) {
  dist_test::Launch launch{"socket_count", 2};
  launch.env["GLOO_SOCKET_IFNAME"] = interfaces;
  const auto exits = dist_test::run_ranks(launch);
  dist_test::expect_ranks_ok(exits);
  const std::string key = "open sockets: ";
  const size_t at = exits[0].output.find(key);
  return at == std::string::npos ? -1 : std::stoi(exits[0].output.substr(at + key.size()));
}

// Two GLOO_SOCKET_IFNAME interfaces (the loopback twice): a Gloo context on each, so more
// connections than with one, and every op (the collectives and the tagged send/recv take the
// contexts in turn) gives the results it gives with one.
TEST(DistCollectives, EveryOpOverTwoSocketInterfaces) {
  const int one = socket_count_with("lo"), two = socket_count_with("lo,lo");
  EXPECT_GT(one, 0);
  EXPECT_GT(two, one) << "a second interface opened no connections of its own";
  dist_test::Launch launch{"collectives", 2};
  launch.env["GLOO_SOCKET_IFNAME"] = "lo,lo";
  dist_test::expect_ranks_ok(dist_test::run_ranks(launch));
}

TEST(DistCollectives, EveryOpAndDtypeOnThreeRanks) {
  dist_test::expect_ranks_ok(dist_test::run_ranks({"collectives", 3}));
}

}  // namespace dist_collectives_test
