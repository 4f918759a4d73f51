// Google Benchmark microbenchmarks of the nn utilities of issue #18 (LibTorch has none of them,
// so each is measured against the same work written by hand in Ember):
//  - a Linear with an orthogonal (matrix_exp) weight, forward + backward: through the
//    parametrization, and the same composition by hand (target: at most 1.2x);
//  - three calls of that Linear with and without parametrize::cached() (the weight computed once
//    against three times);
//  - a training step (SGD, momentum 0.9) of the §5(a) MLP scaled to 8 Linear layers, plain and
//    through checkpoint_sequential with 4 segments (target: at most 1.4x), with the peak bytes
//    the CPU allocator saw during the step as a counter;
//  - inference of a conv-bn-relu block at BENCHMARKS.md §4's L2 shape (x [32, 64, 16, 16], 128
//    3x3 filters, padding 1), unfused (Arg 0) and after fuse_modules (Arg 1: the batch norm
//    folded, the ReLU a oneDNN post-op), and conv + relu against ember::convolution_relu.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include "ember/core/storage.h"

namespace {

using ember::Tensor;
namespace nn = ember::nn;
namespace parametrize = ember::nn::utils::parametrize;

constexpr int64_t kWidth = 256, kBatch = 64;

Tensor skew_of_lower(const Tensor& x) {
  Tensor l = x.tril();
  return l - l.t();
}

void BM_OrthogonalLinearParametrized(benchmark::State& state) {
  ember::manual_seed(0);
  nn::Linear lin(kWidth, kWidth);
  nn::utils::parametrizations::orthogonal(*lin, "weight", "matrix_exp");
  const Tensor x = ember::randn({kBatch, kWidth});
  for (auto _ : state) {
    lin(x).sum().backward();
    for (const Tensor& p : lin->parameters()) p.mutable_grad() = Tensor();
  }
}

// The same computation written out: weight = base · exp(A - Aᵀ), A the lower triangle.
void BM_OrthogonalLinearByHand(benchmark::State& state) {
  ember::manual_seed(0);
  nn::Linear lin(kWidth, kWidth);
  const Tensor base = lin->weight.detach().clone();
  const Tensor original = ember::zeros({kWidth, kWidth}).requires_grad_(true);
  const Tensor bias = lin->bias;
  const Tensor x = ember::randn({kBatch, kWidth});
  for (auto _ : state) {
    Tensor w = base.matmul(ember::linalg::matrix_exp(skew_of_lower(original)));
    nn::functional::linear(x, w, bias).sum().backward();
    original.mutable_grad() = Tensor();
    bias.mutable_grad() = Tensor();
  }
}

// Three calls: arg 0 recomputes the weight each call, arg 1 under cached().
void BM_OrthogonalLinearThreeCalls(benchmark::State& state) {
  ember::manual_seed(0);
  nn::Linear lin(kWidth, kWidth);
  nn::utils::parametrizations::orthogonal(*lin, "weight", "matrix_exp");
  const Tensor x = ember::randn({kBatch, kWidth});
  const bool use_cache = state.range(0) != 0;
  for (auto _ : state) {
    std::optional<parametrize::CachedGuard> guard;
    if (use_cache) guard.emplace();
    Tensor y = lin(x) + lin(x * 2.0) + lin(x * 3.0);
    y.sum().backward();
    for (const Tensor& p : lin->parameters()) p.mutable_grad() = Tensor();
  }
}

nn::Sequential mlp8() {
  nn::Sequential seq;
  seq->push_back(nn::Linear(784, 512));
  for (int i = 0; i < 6; ++i) {
    seq->push_back(nn::ReLU());
    seq->push_back(nn::Linear(512, 512));
  }
  seq->push_back(nn::ReLU());
  seq->push_back(nn::Linear(512, 10));
  return seq;
}

// arg 0: plain; arg 1: checkpoint_sequential with 4 segments.
void BM_Mlp8TrainStep(benchmark::State& state) {
  ember::manual_seed(0);
  nn::Sequential model = mlp8();
  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));
  const Tensor x = ember::randn({64, 784});
  const Tensor y = ember::randint(0, 10, {64}, ember::dtype(ember::kLong));
  const bool ckpt = state.range(0) != 0;
  ember::Allocator* cpu = ember::get_allocator(ember::kCPU);
  size_t peak = 0;
  for (auto _ : state) {
    const size_t before = cpu->allocated_bytes();
    cpu->reset_peak_stats();
    opt.zero_grad();
    Tensor out = ckpt ? ember::utils::checkpoint_sequential(model, 4, x) : model->forward(x);
    nn::functional::cross_entropy(out, y).backward();
    opt.step();
    peak = std::max(peak, cpu->peak_allocated_bytes() - before);
  }
  state.counters["peak_KiB"] = static_cast<double>(peak) / 1024.0;
}

}  // namespace

void BM_ConvBnReluInference(benchmark::State& state) {
  ember::manual_seed(0);
  nn::Sequential block(nn::Conv2d(nn::Conv2dOptions(64, 128, 3).padding(1)), nn::BatchNorm2d(128),
                       nn::ReLU());
  block->eval();
  if (state.range(0) == 1) nn::utils::fuse_modules(block, {{"0", "1", "2"}});
  const Tensor x = ember::randn({32, 64, 16, 16});
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(block->forward(x));
}

void BM_ConvReluOp(benchmark::State& state) {
  ember::manual_seed(0);
  const Tensor x = ember::randn({32, 64, 16, 16}), w = ember::randn({128, 64, 3, 3}) * 0.05,
               b = ember::randn({128});
  const bool fused = state.range(0) == 1;
  for (auto _ : state) {
    if (fused)
      benchmark::DoNotOptimize(ember::convolution_relu(x, w, b, {1}, {1}, {1}, 1));
    else
      benchmark::DoNotOptimize(ember::relu(ember::conv2d(x, w, b, 1, 1)));
  }
}

BENCHMARK(BM_OrthogonalLinearParametrized)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OrthogonalLinearByHand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OrthogonalLinearThreeCalls)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Mlp8TrainStep)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvBnReluInference)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvReluOp)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
