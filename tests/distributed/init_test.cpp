// init_process_group (env://, tcp://, a store), groups, rank queries and argument errors.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ember/distributed/distributed.h"
#include "tests/distributed/dist_values.h"
#include "tests/distributed/harness.h"
#include "tests/support/expect_error.h"

namespace dist_init_test {

namespace dist = ember::distributed;
using dist::ReduceOp;
using ember::Tensor;

// Throws unless fn throws an E whose message contains `part`.
template <class E, class Fn>
void worker_expect_error(Fn&& fn, const std::string& part) {
  try {
    fn();
  } catch (const E& e) {
    DIST_CHECK(std::string(e.what()).find(part) != std::string::npos, "'{}' not in: {}", part,
               e.what());
    return;
  }
  throw std::runtime_error("expected an error containing '" + part + "'");
}

EMBER_DIST_WORKER(tcp_init_and_groups) {
  const int rank = dist_test::env_rank();
  const std::string url = fmt::format("tcp://127.0.0.1:{}", std::getenv("MASTER_PORT"));
  dist::init_process_group("gloo", url, 3, rank, std::chrono::seconds(60));
  DIST_CHECK(dist::is_initialized(), "not initialized");
  DIST_CHECK(dist::get_rank() == rank && dist::get_world_size() == 3, "rank/world");

  // A group of global ranks 0 and 2: rank 1 is not a member.
  auto g = dist::new_group({2, 0});
  if (rank == 1) {
    DIST_CHECK(!dist::is_member(g), "rank 1 is not in [0, 2]");
    DIST_CHECK(dist::get_rank(g) == -1 && dist::get_world_size(g) == -1, "non-member rank/size");
    Tensor t = ember::ones({3});
    dist::all_reduce(t, ReduceOp::SUM, g);  // warns and does nothing, as in Python
    dist_test::check_values(t, {1, 1, 1}, "non-member all_reduce leaves the tensor");
    worker_expect_error<dist::DistError>([&] { g->barrier(); }, "not a member");
  } else {
    DIST_CHECK(dist::get_rank(g) == rank / 2 && dist::get_world_size(g) == 2, "member rank");
    DIST_CHECK(dist::get_global_rank(g, 1) == 2 && dist::get_group_rank(g, 2) == 1, "rank maps");
    Tensor t = ember::full({3}, static_cast<double>(rank + 1));
    dist::all_reduce(t, ReduceOp::SUM, g);
    dist_test::check_values(t, {4, 4, 4}, "group all_reduce (1 + 3)");
    Tensor b = ember::full({2}, static_cast<double>(rank));
    dist::broadcast(b, /*global src=*/2, g);
    dist_test::check_values(b, {2, 2}, "group broadcast from global rank 2");
    worker_expect_error<ember::ValueError>([&] { dist::broadcast(b, 1, g); },
                                           "global rank 1 is not in the group");
  }
  // The default group still works after the sub-group's collectives.
  Tensor w = ember::full({2}, 1.0);
  dist::all_reduce(w);
  dist_test::check_values(w, {3, 3}, "world all_reduce after the group");

  // Argument errors are thrown at the call, on every rank alike, before any communication.
  worker_expect_error<ember::TypeError>(
      [] {
        dist::all_reduce(ember::ones({2}, ember::TensorOptions().dtype(ember::kLong)),
                         ReduceOp::AVG);
      },
      "ReduceOp::AVG needs a floating-point tensor, got [2] int64");
  worker_expect_error<ember::ValueError>(
      [] {
        std::vector<Tensor> two = {ember::zeros({2}), ember::zeros({2})};
        dist::all_gather(two, ember::ones({2}));
      },
      "output has 2 tensors; expected one per rank (3)");
  worker_expect_error<ember::ValueError>(
      [] {
        std::vector<Tensor> outs = {ember::zeros({2}), ember::zeros({3}), ember::zeros({2})};
        dist::all_gather(outs, ember::ones({2}));
      },
      "output[1] is [3] float32; expected 2 elements of float32");
  worker_expect_error<ember::ValueError>([] { dist::broadcast(ember::ones({2}), 5); },
                                         "global rank 5 is not in the group");
  worker_expect_error<ember::ValueError>([&] { dist::send(ember::ones({2}), rank); },
                                         "send: dst is this rank");
  if (rank != 0)
    worker_expect_error<ember::ValueError>(
        [] { dist::gather(ember::ones({2}), {ember::zeros({2})}, 0); },
        "gather_list must be empty");
  worker_expect_error<dist::DistError>([&] { dist::init_process_group("gloo", url, 3, rank); },
                                       "already initialized");
  dist::barrier();
  dist::destroy_process_group();
}

TEST(DistInit, TcpInitGroupsAndArgumentErrors) {
  dist_test::expect_ranks_ok(dist_test::run_ranks({"tcp_init_and_groups", 3}));
}

// One rank: the whole job in this process (port 0 takes a free port for the store).
TEST(DistInit, SingleRankJobInProcess) {
  dist::init_process_group("gloo", "tcp://127.0.0.1:0", 1, 0, std::chrono::seconds(30));
  EXPECT_TRUE(dist::is_initialized());
  EXPECT_EQ(dist::get_world_size(), 1);
  Tensor t = ember::arange(5.0);
  dist::all_reduce(t, ReduceOp::AVG);
  EXPECT_TRUE(ember::equal(t, ember::arange(5.0)));
  std::vector<Tensor> outs = {ember::zeros({5})};
  dist::all_gather(outs, t);
  EXPECT_TRUE(ember::equal(outs[0], t));
  dist::barrier();
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
}

// GLOO_SOCKET_IFNAME (Python's): the peers are reached on that interface's address; a name no
// interface has is an error naming it.
struct ScopedEnv {  // sets a variable for one test, unsets it however the test ends
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  void set(const char* value) const { ::setenv(name_, value, 1); }
  const char* name_;
};

TEST(DistInit, GlooSocketInterfaceFromTheEnvironment) {
  ScopedEnv ifname("GLOO_SOCKET_IFNAME", ",lo");  // empty names are skipped
  dist::init_process_group("gloo", "tcp://127.0.0.1:0", 1, 0, std::chrono::seconds(30));
  Tensor t = ember::arange(3.0);
  dist::all_reduce(t);
  EXPECT_TRUE(ember::equal(t, ember::arange(3.0)));
  dist::destroy_process_group();
  ifname.set("lo,no-such-if0");  // every name of the list is checked
  ember_test::expect_error<dist::DistError>(
      [] { dist::init_process_group("gloo", "tcp://127.0.0.1:0", 1, 0, std::chrono::seconds(30)); },
      {"GLOO_SOCKET_IFNAME interface 'no-such-if0'"});
  EXPECT_FALSE(dist::is_initialized());
  ifname.set("no-such-if0,lo");
  ember_test::expect_error<dist::DistError>(
      [] { dist::init_process_group("gloo", "tcp://127.0.0.1:0", 1, 0, std::chrono::seconds(30)); },
      {"GLOO_SOCKET_IFNAME interface 'no-such-if0'"});
  EXPECT_FALSE(dist::is_initialized());
}

TEST(DistInit, ClearErrorsBeforeAnyConnection) {
  using ember_test::expect_error;
  expect_error<dist::DistError>([] { dist::get_rank(); }, {"get_rank", "not initialized"});
  expect_error<dist::DistError>([] { dist::all_reduce(ember::ones({1})); },
                                {"all_reduce", "init_process_group first"});
  expect_error<ember::ValueError>([] { dist::init_process_group("mpi", "env://"); },
                                  {"unknown backend 'mpi'"});
  // Without NCCL in the build, or (here) without a GPU, NCCL is refused up front.
  if (!ember::cuda::is_available())
    expect_error<ember::Error>([] { dist::init_process_group("nccl", "env://"); },
                               {"the NCCL backend"});
  ::unsetenv("MASTER_ADDR");
  expect_error<ember::ValueError>([] { dist::init_process_group("gloo", "env://"); },
                                  {"MASTER_ADDR"});
  expect_error<ember::ValueError>([] { dist::init_process_group("gloo", "tcp://127.0.0.1:29500"); },
                                  {"needs world_size and rank"});
  expect_error<ember::ValueError>(
      [] { dist::init_process_group("gloo", "tcp://127.0.0.1:29500", 2, 2); },
      {"rank 2 is out of range for world_size 2"});
  expect_error<ember::ValueError>([] { dist::init_process_group("gloo", "tcp://127.0.0.1", 1, 0); },
                                  {"has no port"});
  expect_error<ember::ValueError>([] { dist::init_process_group("gloo", "file:///tmp/x", 1, 0); },
                                  {"unsupported init_method 'file:///tmp/x'"});
  EXPECT_FALSE(dist::is_initialized());
}

}  // namespace dist_init_test
