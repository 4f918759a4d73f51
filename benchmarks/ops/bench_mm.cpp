// Google Benchmark microbenchmarks of ember::mm (BENCHMARKS.md §3 shapes: square, row-major,
// U[0,1), C allocated per call), plus the transposed operand and a skinny Linear-layer shape.
// Counter FLOPS = 2·M·N·K per call, as a rate.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

void set_flops(benchmark::State& state, double m, double n, double k) {
  state.counters["FLOPS"] =
      benchmark::Counter(2.0 * m * n * k * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_MmSquare(benchmark::State& state) {
  const int64_t n = state.range(0);
  ember::manual_seed(0);
  auto a = ember::rand({n, n}), b = ember::rand({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(ember::mm(a, b));
  set_flops(state, n, n, n);
}
BENCHMARK(BM_MmSquare)->RangeMultiplier(2)->Range(64, 1024)->Unit(benchmark::kMicrosecond);

void BM_MmOut(benchmark::State& state) {
  const int64_t n = state.range(0);
  ember::manual_seed(0);
  auto a = ember::rand({n, n}), b = ember::rand({n, n});
  auto c = ember::empty({n, n});
  for (auto _ : state) ember::mm_out(c, a, b);
  set_flops(state, n, n, n);
}
BENCHMARK(BM_MmOut)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

// A·Bᵀ through a transposed view (what Linear's forward does with its weight).
void BM_MmTransposedB(benchmark::State& state) {
  const int64_t n = state.range(0);
  ember::manual_seed(0);
  auto a = ember::rand({n, n}), b = ember::rand({n, n});
  const auto bt = b.t();
  for (auto _ : state) benchmark::DoNotOptimize(ember::mm(a, bt));
  set_flops(state, n, n, n);
}
BENCHMARK(BM_MmTransposedB)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

// The §5 MLP's first layer: [64, 784] x [784, 512].
void BM_MmLinear784x512(benchmark::State& state) {
  ember::manual_seed(0);
  auto x = ember::rand({64, 784}), w = ember::rand({784, 512});
  for (auto _ : state) benchmark::DoNotOptimize(ember::mm(x, w));
  set_flops(state, 64, 512, 784);
}
BENCHMARK(BM_MmLinear784x512)->Unit(benchmark::kMicrosecond);

}  // namespace
