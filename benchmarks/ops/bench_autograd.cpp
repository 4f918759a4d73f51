// Autograd hot paths: recording one op, and what backward allocates per node on a 1000-op chain
// (the "no per-node allocation beyond the gradient tensors"). BENCHMARKS.md §1's 10-op
// chain is in the runner (benchmarks/compare/overhead_*.cpp), side by side with LibTorch.
// Allocations are counted by replacing operator new (C++ objects: tensor and node structs, vectors)
// and interposing posix_memalign (tensor data buffers).
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "ember/ember.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_new_calls{0}, g_new_bytes{0}, g_buffers{0}, g_buffer_bytes{0};

void count_new(size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_new_calls.fetch_add(1, std::memory_order_relaxed);
    g_new_bytes.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
  }
}
}  // namespace

// The replaced operator new takes its memory from malloc, so delete hands it back to free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  count_new(n);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

extern "C" int posix_memalign(void** out, size_t alignment, size_t n) {
  using Fn = int (*)(void**, size_t, size_t);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "posix_memalign"));
  if (g_counting.load(std::memory_order_relaxed)) {
    g_buffers.fetch_add(1, std::memory_order_relaxed);
    g_buffer_bytes.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
  }
  return real(out, alignment, n);
}

namespace {
using ember::Tensor;

void BM_AddRequiresGrad(benchmark::State& state) {
  Tensor a = ember::ones({1}).requires_grad_();
  Tensor b = ember::ones({1}).requires_grad_();
  for (auto _ : state) {
    Tensor c = a.add(b);  // records AddBackward0; c and its node die here
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_AddRequiresGrad);

// backward() of a 1000-op chain; counters are per node of the chain. arg 0: y = y + w (the
// gradient passes through: no gradient tensor is made), arg 1: y = y * w (two per node).
void BM_Chain1000Backward(benchmark::State& state) {
  const bool mul = state.range(0) == 1;
  Tensor x = ember::full({}, 0.5).requires_grad_();
  Tensor w = ember::full({}, 1.0).requires_grad_();
  int64_t new_calls = 0, new_bytes = 0, buffers = 0, buffer_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Tensor y = x;
    for (int i = 0; i < 1000; ++i) y = mul ? y * w : y + w;
    y.backward();  // warm the engine's reused scratch once per shape (not counted)
    y = x;
    for (int i = 0; i < 1000; ++i) y = mul ? y * w : y + w;
    g_new_calls = g_new_bytes = g_buffers = g_buffer_bytes = 0;
    g_counting = true;
    state.ResumeTiming();
    y.backward();
    state.PauseTiming();
    g_counting = false;
    new_calls += g_new_calls;
    new_bytes += g_new_bytes;
    buffers += g_buffers;
    buffer_bytes += g_buffer_bytes;
    y = Tensor();
    state.ResumeTiming();
  }
  const double per_node = 1.0 / (1000.0 * static_cast<double>(state.iterations()));
  state.counters["new_calls_per_node"] = static_cast<double>(new_calls) * per_node;
  state.counters["new_bytes_per_node"] = static_cast<double>(new_bytes) * per_node;
  state.counters["buffers_per_node"] = static_cast<double>(buffers) * per_node;
  state.counters["buffer_bytes_per_node"] = static_cast<double>(buffer_bytes) * per_node;
}
BENCHMARK(BM_Chain1000Backward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
