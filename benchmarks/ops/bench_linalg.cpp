// Google Benchmark microbenchmarks of ember::linalg's LAPACK-backed decompositions: one square
// float64 matrix of size n per call (the input is well conditioned, and symmetric positive-definite
// where the op needs it). Not a BENCHMARKS.md workload: here to measure driver changes.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

using ember::Tensor;

Tensor general(int64_t n) {
  ember::manual_seed(0);
  return ember::randn({n, n}, ember::dtype(ember::kDouble)) +
         ember::eye(n, ember::dtype(ember::kDouble)) * static_cast<double>(n);
}

Tensor spd(int64_t n) {
  const Tensor m = general(n);
  return ember::matmul(m, m.t());
}

template <class F>
void run(benchmark::State& state, const Tensor& a, F&& op) {
  for (auto _ : state) benchmark::DoNotOptimize(op(a));
}

void BM_Qr(benchmark::State& s) {
  run(s, general(s.range(0)), [](auto& a) { return ember::linalg::qr(a); });
}
void BM_Svd(benchmark::State& s) {
  run(s, general(s.range(0)), [](auto& a) { return ember::linalg::svd(a, false); });
}
void BM_Svdvals(benchmark::State& s) {
  run(s, general(s.range(0)), [](auto& a) { return ember::linalg::svdvals(a); });
}
void BM_Eigh(benchmark::State& s) {
  run(s, spd(s.range(0)), [](auto& a) { return ember::linalg::eigh(a); });
}
void BM_Inv(benchmark::State& s) {
  run(s, general(s.range(0)), [](auto& a) { return ember::linalg::inv(a); });
}
void BM_Solve(benchmark::State& s) {
  run(s, general(s.range(0)), [](auto& a) { return ember::linalg::solve(a, a); });
}
void BM_Cholesky(benchmark::State& s) {
  run(s, spd(s.range(0)), [](auto& a) { return ember::linalg::cholesky(a); });
}
void BM_Det(benchmark::State& s) {
  run(s, general(s.range(0)), [](auto& a) { return ember::linalg::det(a); });
}
void BM_MatrixExp(benchmark::State& s) {
  run(s, general(s.range(0)) / static_cast<double>(s.range(0)),
      [](auto& a) { return ember::linalg::matrix_exp(a); });
}

// A batch of 10000 3x3 matrices: the per-matrix cost around the LAPACK call (copies, buffers).
void BM_DetBatched3x3(benchmark::State& s) {
  ember::manual_seed(0);
  run(s, ember::randn({10000, 3, 3}, ember::dtype(ember::kDouble)),
      [](auto& a) { return ember::linalg::det(a); });
}
BENCHMARK(BM_DetBatched3x3)->Unit(benchmark::kMicrosecond);

#define EMBER_LINALG_SIZES ->Arg(16)->Arg(128)->Arg(512)->Unit(benchmark::kMicrosecond)
BENCHMARK(BM_Qr) EMBER_LINALG_SIZES;
BENCHMARK(BM_Svd) EMBER_LINALG_SIZES;
BENCHMARK(BM_Svdvals) EMBER_LINALG_SIZES;
BENCHMARK(BM_Eigh) EMBER_LINALG_SIZES;
BENCHMARK(BM_Inv) EMBER_LINALG_SIZES;
BENCHMARK(BM_Solve) EMBER_LINALG_SIZES;
BENCHMARK(BM_Cholesky) EMBER_LINALG_SIZES;
BENCHMARK(BM_Det) EMBER_LINALG_SIZES;
BENCHMARK(BM_MatrixExp) EMBER_LINALG_SIZES;

}  // namespace
