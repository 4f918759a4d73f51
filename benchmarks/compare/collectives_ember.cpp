// The collectives workload (collectives_common.h), Ember side: ember::distributed's Gloo process
// group, initialised through tcp:// on a free port. Usage: collectives_ember <case> <threads>;
// --list prints the cases.
#include <algorithm>
#include <chrono>
#include <string>

#include "collectives_common.h"
#include "ember/distributed/distributed.h"
#include "ember/ember.h"
#include "ember_threads.h"

namespace dist = ember::distributed;

int main(int argc, char** argv) {
  const auto [cas, threads] = bench_coll::parse_args(argc, argv);
  const bench_coll::Job job = bench_coll::fork_ranks();
  const int rank = job.rank;
  bench_ember::apply_threads(threads);
  const bench::Tag tag{"collectives", cas, threads.name, "ember"};

  dist::init_process_group("gloo", "tcp://127.0.0.1:" + std::to_string(job.port), 2, rank,
                           std::chrono::seconds(60));
  const auto size = bench_coll::case_size(cas);
  bench::Timing t;
  bool ok = true;
  if (size.elements > 0) {
    const bool broadcast = bench_coll::is_broadcast(cas);
    ember::Tensor check = ember::full({size.elements}, static_cast<double>(rank + 1));
    if (broadcast)
      dist::broadcast(check, 0);
    else
      dist::all_reduce(check);
    ok = ember::equal(check, ember::full({size.elements}, broadcast ? 1.0 : 3.0));
    ember::Tensor x = ember::zeros({size.elements});
    t = bench_coll::time_calls(
        size.inner,
        [&] {
          if (broadcast)
            dist::broadcast(x, 0);
          else
            dist::all_reduce(x);
        },
        [] { dist::barrier(); });
  } else {
    t = bench_coll::time_calls(
        size.inner, [] { dist::barrier(); }, [] { dist::barrier(); });
  }
  dist::destroy_process_group();
  if (rank == 1) return ok ? 0 : 1;
  ok = bench_coll::join_rank1(job.child) == 0 && ok;
  bench::print_time(tag, t, 1e6, "us");
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") + " ranks=2");
  return ok ? 0 : 1;
}
