// The collectives workload (collectives_common.h), LibTorch side: c10d's TCPStore and
// ProcessGroupGloo (in libtorch_cpu; what Python's torch.distributed runs on), one Gloo device
// on 127.0.0.1, the group's default worker threads. Usage: collectives_torch <case> <threads>;
// --list prints the cases.
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "collectives_common.h"
#include "torch_threads.h"

int main(int argc, char** argv) {
  const auto [cas, threads] = bench_coll::parse_args(argc, argv);
  const bench_coll::Job job = bench_coll::fork_ranks();
  const int rank = job.rank;
  bench_torch::apply_threads(threads);
  const bench::Tag tag{"collectives", cas, threads.name, "libtorch"};

  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(job.port);
  store_options.isServer = rank == 0;
  store_options.numWorkers = 2;
  store_options.timeout = std::chrono::seconds(60);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  options->timeout = std::chrono::seconds(60);
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(
      c10::make_intrusive<c10d::PrefixStore>("bench", store), rank, 2, options);
  auto barrier = [&] { group->barrier()->wait(); };

  const auto size = bench_coll::case_size(cas);
  bench::Timing t;
  bool ok = true;
  if (size.elements > 0) {
    const bool broadcast = bench_coll::is_broadcast(cas);
    std::vector<at::Tensor> check = {torch::full({size.elements}, double(rank + 1))};
    if (broadcast)
      group->broadcast(check)->wait();  // root rank 0 by default (BroadcastOptions)
    else
      group->allreduce(check)->wait();
    ok = torch::equal(check[0], torch::full({size.elements}, broadcast ? 1.0 : 3.0));
    std::vector<at::Tensor> x = {torch::zeros({size.elements})};
    t = bench_coll::time_calls(
        size.inner,
        [&] {
          if (broadcast)
            group->broadcast(x)->wait();
          else
            group->allreduce(x)->wait();
        },
        barrier);
  } else {
    t = bench_coll::time_calls(size.inner, barrier, barrier);
  }
  group.reset();
  if (rank == 1) return ok ? 0 : 1;
  ok = bench_coll::join_rank1(job.child) == 0 && ok;
  bench::print_time(tag, t, 1e6, "us");
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             " ranks=2 version=" + bench_torch::version());
  return ok ? 0 : 1;
}
