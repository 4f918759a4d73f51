// Google Benchmark microbenchmarks of Ember's per-op overhead (BENCHMARKS.md §1): ops on
// one-element tensors, where the time is all argument checks, dispatch, output allocation and
// refcounting.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

void BM_Add1Elem(benchmark::State& state) {
  auto a = ember::ones({1}), b = ember::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(a.add(b));
}
BENCHMARK(BM_Add1Elem);

void BM_AddInplace1Elem(benchmark::State& state) {
  auto a = ember::ones({1}), b = ember::zeros({1});
  for (auto _ : state) benchmark::DoNotOptimize(a.add_(b));
}
BENCHMARK(BM_AddInplace1Elem);

void BM_AddOut1Elem(benchmark::State& state) {
  auto a = ember::ones({1}), b = ember::ones({1}), out = ember::empty({1});
  for (auto _ : state) ember::add_out(out, a, b);
}
BENCHMARK(BM_AddOut1Elem);

void BM_MulScalar1Elem(benchmark::State& state) {
  auto a = ember::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(a * 2.0);
}
BENCHMARK(BM_MulScalar1Elem);

void BM_Sin0Dim(benchmark::State& state) {
  auto a = ember::full({}, 0.5);
  for (auto _ : state) benchmark::DoNotOptimize(ember::sin(a));
}
BENCHMARK(BM_Sin0Dim);

void BM_Empty1Elem(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ember::empty({1}));
}
BENCHMARK(BM_Empty1Elem);

void BM_Ones1Elem(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ember::ones({1}));
}
BENCHMARK(BM_Ones1Elem);

void BM_View(benchmark::State& state) {
  auto a = ember::ones({4, 4});
  for (auto _ : state) benchmark::DoNotOptimize(a.view({16}));
}
BENCHMARK(BM_View);

void BM_Item(benchmark::State& state) {
  auto a = ember::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(a.item<float>());
}
BENCHMARK(BM_Item);

// Broadcasting two different shapes: [1] + [4, 1] -> [4, 4] style shape work.
void BM_AddBroadcastSmall(benchmark::State& state) {
  auto a = ember::ones({4, 1}), b = ember::ones({1, 4});
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
}
BENCHMARK(BM_AddBroadcastSmall);

}  // namespace
