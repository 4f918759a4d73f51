// Issue #19's DDP measurements: the §5(a) MLP and §5(b) LeNet training step (batch 64 per rank,
// SGD lr 0.01 momentum 0.9, BENCHMARKS.md's definitions) on one process, and on the ranks of a
// tools/ember-run job wrapped in DistributedDataParallel. Run alone it times the plain step
// (the baseline); under ember-run (WORLD_SIZE > 1) rank 0 prints, for the DDP step:
//   step     the full step (all-reduce overlapped with backward as DDP does it)
//   compute  the same step under no_sync() (no communication)
//   synced   the no_sync() step followed by a one-element all-reduce: compute plus the wait for
//            the slower rank that any synchronous step pays (the ranks' step times vary, and
//            each step waits for the slower one), without moving the gradients
//   comm     all-reduce alone of the gradients' bytes, in buckets of the same size
//   overlap  1 - (step - compute) / comm: the share of the all-reduce hidden behind backward,
//            counting the wait for the slower rank as exposed communication
//   overlap_synced  1 - (step - synced) / comm: the same with that wait taken out
// Every rank runs the same fixed number of steps (collectives must pair up), 5 repetitions,
// median. Usage: ember_bench_ddp <mlp|mlp_bn|lenet> [bucket_cap_mb (25)] [steps (mlp 300,
// lenet 40)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ember/distributed/distributed.h"
#include "ember/ember.h"
#include "ember/nn/parallel/distributed.h"

namespace {

namespace nn = ember::nn;
namespace dist = ember::distributed;
using Clock = std::chrono::steady_clock;

nn::Sequential make_model(const std::string& name) {
  if (name == "lenet")
    return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 5)), nn::ReLU(),
                          nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                          nn::Conv2d(nn::Conv2dOptions(32, 64, 5)), nn::ReLU(),
                          nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten(),
                          nn::Linear(1024, 128), nn::ReLU(), nn::Linear(128, 10));
  if (name == "mlp_bn")  // the MLP with batch norm: buffers DDP broadcasts before each forward
    return nn::Sequential(nn::Linear(784, 512), nn::BatchNorm1d(512), nn::ReLU(),
                          nn::Linear(512, 256), nn::BatchNorm1d(256), nn::ReLU(),
                          nn::Linear(256, 10));
  return nn::Sequential(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 256), nn::ReLU(),
                        nn::Linear(256, 10));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median over 5 repetitions of `steps` calls, in ms per call; a barrier before each repetition
// when distributed, so the ranks start together.
template <class F>
double time_ms(int steps, bool distributed, F&& step) {
  for (int i = 0; i < std::max(1, steps / 10); ++i) step();  // warm-up
  std::vector<double> reps;
  for (int r = 0; r < 5; ++r) {
    if (distributed) dist::barrier();
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) step();
    reps.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / steps);
  }
  return median(reps);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <mlp|mlp_bn|lenet> [bucket_cap_mb] [steps]\n", argv[0]);
    return 2;
  }
  const std::string model_name = argv[1];
  const double bucket_mb = argc > 2 ? std::atof(argv[2]) : 25.0;
  const int steps = argc > 3 ? std::atoi(argv[3]) : (model_name == "lenet" ? 40 : 300);
  ember::set_num_threads(1);
  const char* world_env = std::getenv("WORLD_SIZE");
  const bool distributed = world_env && std::atoi(world_env) > 1;

  ember::manual_seed(0);
  nn::Sequential model = make_model(model_name);
  const ember::Tensor x =
      model_name == "lenet" ? ember::randn({64, 1, 28, 28}) : ember::randn({64, 784});
  const ember::Tensor y = ember::randint(0, 10, {64});
  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));

  if (!distributed) {
    const double ms = time_ms(steps, false, [&] {
      opt.zero_grad();
      nn::functional::cross_entropy(model->forward(x), y).backward();
      opt.step();
    });
    std::printf("RESULT ddp %s_step 1 ember median=%.4f unit=ms ranks=1 bucket_mb=-\n",
                model_name.c_str(), ms);
    return 0;
  }

  dist::init_process_group("gloo", "env://");
  const int rank = dist::get_rank(), world = dist::get_world_size();
  nn::parallel::DistributedDataParallel ddp(
      model, nn::parallel::DistributedDataParallelOptions().bucket_cap_mb(bucket_mb));
  auto step = [&] {
    opt.zero_grad();
    nn::functional::cross_entropy(ddp->forward(x), y).backward();
    opt.step();
  };
  const double step_ms = time_ms(steps, true, step);
  const double compute_ms = time_ms(steps, true, [&] {
    auto guard = ddp->no_sync();
    step();
  });
  ember::Tensor token = ember::zeros({1});
  const double synced_ms = time_ms(steps, true, [&] {
    {
      auto guard = ddp->no_sync();
      step();
    }
    dist::all_reduce(token);
  });
  // The all-reduce of the same bytes in the same buckets, with nothing else running.
  std::vector<ember::Tensor> buckets;
  for (const auto& names : ddp->bucket_parameter_names()) {
    int64_t n = 0;
    for (const auto& name : names) n += ddp->module()->named_parameters()[name].numel();
    buckets.push_back(ember::zeros({n}));
  }
  const double comm_ms = time_ms(steps, true, [&] {
    std::vector<dist::WorkPtr> works;
    for (auto& b : buckets)
      works.push_back(dist::all_reduce(b, dist::ReduceOp::SUM, nullptr, true));
    for (auto& w : works) w->wait();
  });
  if (rank == 0) {
    const auto hidden = [&](double baseline) {
      return std::clamp(comm_ms > 0 ? 1.0 - (step_ms - baseline) / comm_ms : 1.0, 0.0, 1.0);
    };
    std::printf(
        "RESULT ddp %s_step %d ember median=%.4f unit=ms ranks=%d bucket_mb=%g buckets=%zu "
        "compute_ms=%.4f synced_ms=%.4f comm_ms=%.4f overlap=%.2f overlap_synced=%.2f\n",
        model_name.c_str(), world, step_ms, world, bucket_mb, buckets.size(), compute_ms, synced_ms,
        comm_ms, hidden(compute_ms), hidden(synced_ms));
  }
  dist::destroy_process_group();
  return 0;
}
