// Google Benchmark microbenchmarks of the fused layer paths that reach their kernels through the
// dispatcher: layer_norm / rms_norm (forward, forward+backward), embedding and embedding_bag
// (forward, forward+backward), and the indexing gather/put behind index_select, gather and
// index_put_ (accumulating). float32, shapes of a small transformer block and an MNIST batch.
// Not a BENCHMARKS.md workload: here to measure changes to these kernels and their dispatch.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

using ember::Tensor;
namespace F = ember::nn::functional;

Tensor randn(std::vector<int64_t> shape, bool requires_grad = false) {
  ember::manual_seed(0);
  return ember::randn(shape).requires_grad_(requires_grad);
}
Tensor ids(int64_t n, int64_t bound) {
  ember::manual_seed(1);
  return ember::randint(0, bound, {n}, ember::dtype(ember::kLong));
}

// [rows, d] = [512, 768]
void BM_LayerNormForward(benchmark::State& state) {
  const Tensor x = randn({512, 768}), w = randn({768}), b = randn({768});
  ember::NoGradGuard no_grad;
  for (auto _ : state)
    benchmark::DoNotOptimize(F::layer_norm(x, F::LayerNormFuncOptions({768}).weight(w).bias(b)));
}
void BM_LayerNormForwardBackward(benchmark::State& state) {
  const Tensor x = randn({512, 768}, true), w = randn({768}, true), b = randn({768}, true);
  for (auto _ : state) {
    F::layer_norm(x, F::LayerNormFuncOptions({768}).weight(w).bias(b)).sum().backward();
    x.mutable_grad() = Tensor();
    w.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
  }
}
void BM_RmsNormForward(benchmark::State& state) {
  const Tensor x = randn({512, 768}), w = randn({768});
  ember::NoGradGuard no_grad;
  for (auto _ : state)
    benchmark::DoNotOptimize(F::rms_norm(x, F::RMSNormFuncOptions({768}).weight(w)));
}

// A 30000 x 256 table, 4096 lookups.
void BM_EmbeddingForward(benchmark::State& state) {
  const Tensor table = randn({30000, 256}), i = ids(4096, 30000);
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(F::embedding(i, table));
}
void BM_EmbeddingForwardBackward(benchmark::State& state) {
  const Tensor table = randn({30000, 256}, true), i = ids(4096, 30000);
  for (auto _ : state) {
    F::embedding(i, table).sum().backward();
    table.mutable_grad() = Tensor();
  }
}
// 2048 bags of 20 entries, mode from the argument (0 sum, 1 mean, 2 max).
void BM_EmbeddingBagForward(benchmark::State& state) {
  const Tensor table = randn({30000, 128}), i = ids(2048 * 20, 30000);
  const Tensor offsets = ember::arange(0, 2048 * 20, 20, ember::dtype(ember::kLong));
  const ember::nn::EmbeddingBagMode modes[] = {ember::enumtype::kSum(), ember::enumtype::kMean(),
                                               ember::enumtype::kMax()};
  const auto options = F::EmbeddingBagFuncOptions().offsets(offsets).mode(modes[state.range(0)]);
  ember::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(F::embedding_bag(i, table, options));
}

// Indexing: 60000 x 784 rows picked by a batch of 256 indices (the Fashion-MNIST batch), gather
// along dim 1, and an accumulating index_put_ of 65536 values into 4096 slots.
void BM_IndexSelectRows(benchmark::State& state) {
  const Tensor images = randn({60000, 784}), i = ids(256, 60000);
  for (auto _ : state) benchmark::DoNotOptimize(images.index_select(0, i));
}
void BM_GatherDim1(benchmark::State& state) {
  const Tensor x = randn({1024, 512});
  ember::manual_seed(2);
  const Tensor i = ember::randint(0, 512, {1024, 64}, ember::dtype(ember::kLong));
  for (auto _ : state) benchmark::DoNotOptimize(x.gather(1, i));
}
void BM_IndexPutAccumulate(benchmark::State& state) {
  Tensor dst = ember::zeros({4096});
  const Tensor i = ids(65536, 4096), v = randn({65536});
  for (auto _ : state)
    benchmark::DoNotOptimize(ember::index_put_(dst, {i}, v, /*accumulate=*/true));
}

}  // namespace

BENCHMARK(BM_LayerNormForward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LayerNormForwardBackward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RmsNormForward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EmbeddingForward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EmbeddingForwardBackward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EmbeddingBagForward)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_IndexSelectRows)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GatherDim1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_IndexPutAccumulate)->Unit(benchmark::kMicrosecond);
