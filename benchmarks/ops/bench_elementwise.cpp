// Google Benchmark microbenchmarks of Ember's elementwise hot paths: the contiguous fast path at
// sizes from L1-resident to DRAM-bound, allocating and _out forms, plus one broadcast and one
// strided case. Bytes processed count inputs read + outputs written (4 B each), as BENCHMARKS.md
// §2.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

void size_args(benchmark::internal::Benchmark* b) {
  for (int64_t n : {1 << 10, 1 << 16, 1 << 20, 1 << 24}) b->Arg(n);
}

void set_bytes(benchmark::State& state, int tensors) {
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4 * tensors);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_AddOut(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0)}), b = ember::randn({state.range(0)});
  auto out = ember::empty({state.range(0)});
  for (auto _ : state) ember::add_out(out, a, b);
  set_bytes(state, 3);
}
BENCHMARK(BM_AddOut)->Apply(size_args);

void BM_AddAlloc(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0)}), b = ember::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  set_bytes(state, 3);
}
BENCHMARK(BM_AddAlloc)->Apply(size_args);

void BM_ReluOut(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0)});
  auto out = ember::empty({state.range(0)});
  for (auto _ : state) ember::clamp_min_out(out, a, 0);
  set_bytes(state, 2);
}
BENCHMARK(BM_ReluOut)->Apply(size_args);

// ReLU's backward: one fused threshold_backward pass (what ReluBackward0 runs) against the
// comparison + where it replaced, which allocates a bool mask and reads it back.
void BM_ReluBackward(benchmark::State& state) {
  ember::manual_seed(0);
  auto grad = ember::randn({state.range(0)}), result = ember::randn({state.range(0)}).relu();
  for (auto _ : state) benchmark::DoNotOptimize(ember::threshold_backward(grad, result, 0));
  set_bytes(state, 3);
}
BENCHMARK(BM_ReluBackward)->Apply(size_args);

void BM_ReluBackwardWhere(benchmark::State& state) {
  ember::manual_seed(0);
  auto grad = ember::randn({state.range(0)}), result = ember::randn({state.range(0)}).relu();
  for (auto _ : state) benchmark::DoNotOptimize(ember::where(result > 0, grad, 0));
  set_bytes(state, 3);
}
BENCHMARK(BM_ReluBackwardWhere)->Apply(size_args);

void BM_GeluOut(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0)});
  auto out = ember::empty({state.range(0)});
  for (auto _ : state) ember::gelu_out(out, a);
  set_bytes(state, 2);
}
BENCHMARK(BM_GeluOut)->Apply(size_args);

void BM_ExpOut(benchmark::State& state) {
  ember::manual_seed(0);
  auto a = ember::randn({state.range(0)});
  auto out = ember::empty({state.range(0)});
  for (auto _ : state) ember::exp_out(out, a);
  set_bytes(state, 2);
}
BENCHMARK(BM_ExpOut)->Apply(size_args);

// Row-vector broadcast: [n/1024, 1024] + [1024], the bias-add shape.
void BM_AddBroadcastRow(benchmark::State& state) {
  ember::manual_seed(0);
  const int64_t rows = state.range(0) / 1024;
  auto a = ember::randn({rows, 1024}), b = ember::randn({1024});
  auto out = ember::empty({rows, 1024});
  for (auto _ : state) ember::add_out(out, a, b);
  set_bytes(state, 2);  // b stays in cache
}
BENCHMARK(BM_AddBroadcastRow)->Arg(1 << 20)->Arg(1 << 24);

// Transposed input: the strided (non-coalescable) path.
void BM_AddTransposed(benchmark::State& state) {
  ember::manual_seed(0);
  const int64_t side = state.range(0);
  auto a = ember::randn({side, side}), b = ember::randn({side, side});
  auto out = ember::empty({side, side});
  const auto at = a.t();
  for (auto _ : state) ember::add_out(out, at, b);
  state.SetBytesProcessed(state.iterations() * side * side * 4 * 3);
}
BENCHMARK(BM_AddTransposed)->Arg(1024)->Arg(4096);

}  // namespace
