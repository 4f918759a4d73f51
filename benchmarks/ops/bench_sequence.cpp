// Google Benchmark microbenchmarks of the sequence-model paths: the LSTM layer (the fused cell
// kernels and the one-node backward through time), one LSTMCell step, and the softmax /
// log_softmax backward rows that a language model's cross-entropy over a large vocabulary runs.
// float32, shapes of BENCHMARKS.md §5(c) (seq 35, batch 20, LSTM 128 -> 256, vocabulary 10000).
// Not a BENCHMARKS.md workload itself (train_step lstm_* is): here to measure these kernels.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include <tuple>

namespace {

using ember::Tensor;
namespace nn = ember::nn;
namespace F = ember::nn::functional;

Tensor randn(std::vector<int64_t> shape, bool requires_grad = false) {
  ember::manual_seed(0);
  return ember::randn(shape).requires_grad_(requires_grad);
}

// LSTM(128, 256, 2 layers) on [35, 20, 128].
void BM_LSTMForward(benchmark::State& state) {
  ember::manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(128, 256).num_layers(2));
  const Tensor x = randn({35, 20, 128});
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(std::get<0>(lstm->forward(x)));
}
void BM_LSTMForwardBackward(benchmark::State& state) {
  ember::manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(128, 256).num_layers(2));
  const Tensor x = randn({35, 20, 128}, true);
  for (auto _ : state) {
    std::get<0>(lstm->forward(x)).sum().backward();
    x.mutable_grad() = Tensor();
    for (auto& p : lstm->parameters()) p.mutable_grad() = Tensor();
  }
}
// One LSTMCell(256, 256) step, batch 20.
void BM_LSTMCellStep(benchmark::State& state) {
  ember::manual_seed(0);
  nn::LSTMCell cell(256, 256);
  const Tensor x = randn({20, 256}), h = randn({20, 256}), c = randn({20, 256});
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(cell->forward(x, std::make_tuple(h, c)));
}

// The gradient rows of log_softmax / softmax over [700, 10000].
void BM_LogSoftmaxBackward(benchmark::State& state) {
  const Tensor g = randn({700, 10000}), y = F::log_softmax(randn({700, 10000}), 1);
  for (auto _ : state)
    benchmark::DoNotOptimize(ember::_log_softmax_backward_data(g, y, 1, ember::kFloat));
}
void BM_SoftmaxBackward(benchmark::State& state) {
  const Tensor g = randn({700, 10000}), y = F::softmax(randn({700, 10000}), 1);
  for (auto _ : state)
    benchmark::DoNotOptimize(ember::_softmax_backward_data(g, y, 1, ember::kFloat));
}
// Cross-entropy of a language model's logits, forward and backward.
void BM_CrossEntropyForwardBackward(benchmark::State& state) {
  const Tensor logits = randn({700, 10000}, true);
  ember::manual_seed(1);
  const Tensor target = ember::randint(0, 10000, {700});
  for (auto _ : state) {
    F::cross_entropy(logits * 1.0, target).backward();
    logits.mutable_grad() = Tensor();
  }
}

BENCHMARK(BM_LSTMForward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LSTMForwardBackward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LSTMCellStep)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LogSoftmaxBackward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SoftmaxBackward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CrossEntropyForwardBackward)->Unit(benchmark::kMillisecond);

}  // namespace
