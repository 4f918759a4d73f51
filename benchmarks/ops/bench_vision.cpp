// Google Benchmark microbenchmarks of the vision layers on the shapes of BENCHMARKS.md §5(b)'s
// LeNet step (batch 64), beside benchmarks/compare/conv_*.cpp (BENCHMARKS.md §4's convolutions,
// side by side with LibTorch): LeNet's first convolution (x [64, 1, 28, 28], w [32, 1, 5, 5],
// the direct kernel of kernels/cpu/conv_c1.h), forward and forward + weight gradient; max pooling
// with indices, forward and backward, and ReLU, where arg 0 is the first pool's input
// [64, 32, 24, 24] and arg 1 the second's [64, 64, 8, 8]. Not a BENCHMARKS.md workload: here to
// measure changes to these kernels.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

using ember::Tensor;
namespace F = ember::nn::functional;

Tensor lenet_activation(int64_t which, bool requires_grad = false) {
  ember::manual_seed(0);
  const std::vector<int64_t> shape =
      which == 0 ? std::vector<int64_t>{64, 32, 24, 24} : std::vector<int64_t>{64, 64, 8, 8};
  return ember::randn(shape).requires_grad_(requires_grad);
}

void BM_LeNetConv1Forward(benchmark::State& state) {
  ember::manual_seed(0);
  const Tensor x = ember::randn({64, 1, 28, 28});
  const Tensor w = ember::randn({32, 1, 5, 5}), b = ember::randn({32});
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(ember::conv2d(x, w, b));
}

void BM_LeNetConv1ForwardBackward(benchmark::State& state) {
  ember::manual_seed(0);
  const Tensor x = ember::randn({64, 1, 28, 28});
  const Tensor w = ember::randn({32, 1, 5, 5}).requires_grad_(true);
  const Tensor b = ember::randn({32}).requires_grad_(true);
  const Tensor grad = ember::randn({64, 32, 24, 24});
  for (auto _ : state) {
    ember::conv2d(x, w, b).backward(grad);
    w.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
  }
}

void BM_MaxPool2dForward(benchmark::State& state) {
  const Tensor x = lenet_activation(state.range(0));
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(ember::max_pool2d_with_indices(x, {2, 2}, {2, 2}));
}

void BM_MaxPool2dForwardBackward(benchmark::State& state) {
  const Tensor x = lenet_activation(state.range(0), true);
  const Tensor y = F::max_pool2d(x, F::MaxPool2dFuncOptions(2));
  const Tensor grad = ember::ones_like(y);
  for (auto _ : state) {
    Tensor out = F::max_pool2d(x, F::MaxPool2dFuncOptions(2));
    out.backward(grad);
    x.mutable_grad() = Tensor();
  }
}

void BM_ReluForward(benchmark::State& state) {
  const Tensor x = lenet_activation(state.range(0));
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(ember::relu(x));
}

}  // namespace

BENCHMARK(BM_LeNetConv1Forward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetConv1ForwardBackward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxPool2dForward)->DenseRange(0, 1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxPool2dForwardBackward)->DenseRange(0, 1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReluForward)->DenseRange(0, 1)->Unit(benchmark::kMicrosecond);
