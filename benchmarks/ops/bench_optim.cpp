// Google Benchmark microbenchmarks of one optimizer step over the parameters of the Fashion-MNIST
// MLP (784-256-10, float32, gradients already in place): SGD with momentum, Adam, AdamW with
// amsgrad. Not a BENCHMARKS.md workload: here to measure changes to the update loops.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include <memory>
#include <vector>

namespace {

using ember::Tensor;
namespace optim = ember::optim;

std::vector<Tensor> mlp_params_with_grads() {
  ember::manual_seed(0);
  std::vector<Tensor> params;
  for (std::vector<int64_t> shape : {std::vector<int64_t>{256, 784}, {256}, {10, 256}, {10}}) {
    Tensor p = ember::randn(shape).requires_grad_();
    p.mutable_grad() = ember::randn(shape);
    params.push_back(p);
  }
  return params;
}

template <class Make>
void run(benchmark::State& state, Make make) {
  std::vector<Tensor> params = mlp_params_with_grads();
  std::unique_ptr<optim::Optimizer> opt = make(params);
  opt->step();  // states allocated outside the timed loop
  for (auto _ : state) opt->step();
}

void BM_SgdMomentumStep(benchmark::State& s) {
  run(s, [](std::vector<Tensor>& p) {
    return std::make_unique<optim::SGD>(p, optim::SGDOptions(0.01).momentum(0.9));
  });
}
void BM_AdamStep(benchmark::State& s) {
  run(s, [](std::vector<Tensor>& p) {
    return std::make_unique<optim::Adam>(p, optim::AdamOptions(1e-3));
  });
}
void BM_AdamWAmsgradStep(benchmark::State& s) {
  run(s, [](std::vector<Tensor>& p) {
    return std::make_unique<optim::AdamW>(p, optim::AdamWOptions(1e-3).amsgrad(true));
  });
}

}  // namespace

BENCHMARK(BM_SgdMomentumStep)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AdamStep)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AdamWAmsgradStep)->Unit(benchmark::kMicrosecond);
