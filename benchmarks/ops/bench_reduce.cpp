// Google Benchmark microbenchmarks of Ember's reductions: the full sum (BENCHMARKS.md §2 `sum`) at
// sizes from L1 to DRAM, and sums over the inner and the outer dim of a matrix. Bytes processed =
// 4 B x elements read.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

void BM_SumAll(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(a.sum());
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}
BENCHMARK(BM_SumAll)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 24);

// [rows, 1024] summed over dim 1 (contiguous inner reduction, one result per row).
void BM_SumInnerDim(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0), 1024});
  for (auto _ : state) benchmark::DoNotOptimize(a.sum({1}));
  state.SetBytesProcessed(state.iterations() * state.range(0) * 1024 * 4);
}
BENCHMARK(BM_SumInnerDim)->Arg(64)->Arg(4096);

// [rows, 1024] summed over dim 0 (outer reduction: vectorise across columns).
void BM_SumOuterDim(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0), 1024});
  for (auto _ : state) benchmark::DoNotOptimize(a.sum({0}));
  state.SetBytesProcessed(state.iterations() * state.range(0) * 1024 * 4);
}
BENCHMARK(BM_SumOuterDim)->Arg(64)->Arg(4096);

void BM_MeanAll(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(a.mean());
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}
BENCHMARK(BM_MeanAll)->Arg(1 << 20)->Arg(1 << 24);

}  // namespace
