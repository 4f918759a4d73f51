// What the CPU fused optimizer kernels (kernels/cpu/optim_*.cpp) share: the multi-tensor driver
// that runs a family's per-element functor (kernels/common/optim_functors.h) over every tensor of
// the list, split over threads by elements when the total is large.
//
// The compiler vectorises each stage's element loop (#pragma omp simd: the functor's pointers do
// not overlap, each element is independent); the square roots between the stages are taken with
// the vector instruction. The functors control FMA contraction themselves (OptimMath::mul/madd),
// so the results are the op chain's bits whatever the compiler fuses.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ember/core/half.h"
#include "kernels/common/optim_functors.h"
#include "kernels/common/optim_params.h"
#include "kernels/common/visit.h"
#include "src/core/parallel.h"

namespace ember::kernels {

/// Below this many elements in all, one thread runs the whole list (thread wake-up would cost
/// more than the update).
constexpr int64_t kOptimParallelGrain = kElementwiseGrain;

/// Calls body(tensor, begin, end) over every element range of the list: serially for a small
/// total; otherwise the flat element range [0, total) split over the threads, each chunk mapped
/// back to the (tensor, range) pieces it covers. Each element is computed alone, so the split does
/// not change any result.
template <class Body>
void optim_for_each(const OptimTensorList& list, const Body& body) {
  int64_t total = 0;
  for (int64_t k = 0; k < list.count; ++k) total += list.tensors[k].numel;
  if (total == 0) return;
  if (total <= kOptimParallelGrain || get_num_threads() <= 1) {
    for (int64_t k = 0; k < list.count; ++k) {
      const OptimTensor& t = list.tensors[k];
      if (t.numel > 0) body(t, int64_t{0}, t.numel);
    }
    return;
  }
  parallel_for(0, total, kOptimParallelGrain, [&](int64_t begin, int64_t end) {
    // Find the tensor holding flat index `begin`, then walk forward.
    int64_t k = 0, start = 0;
    while (k < list.count && start + list.tensors[k].numel <= begin) {
      start += list.tensors[k].numel;
      ++k;
    }
    for (; k < list.count && start < end; ++k) {
      const OptimTensor& t = list.tensors[k];
      const int64_t lo = std::max(begin, start) - start;
      const int64_t hi = std::min(end, start + t.numel) - start;
      if (lo < hi) body(t, lo, hi);
      start += t.numel;
    }
  });
}

/// Square roots of n values in place: the vector instruction (IEEE, exact as the scalar one and
/// as std::sqrt) where the target has it. GCC keeps std::sqrt scalar in a vector loop (errno), so
/// the functors leave their roots to this.
inline void optim_sqrt_block(float* x, int64_t n) {
  int64_t j = 0;
#if defined(__AVX512F__)
  for (; j + 16 <= n; j += 16)
    _mm512_storeu_ps(x + j, _mm512_maskz_sqrt_ps(0xFFFF, _mm512_loadu_ps(x + j)));
#elif defined(__AVX__)
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(x + j, _mm256_sqrt_ps(_mm256_loadu_ps(x + j)));
#endif
  for (; j < n; ++j) x[j] = std::sqrt(x[j]);
}
inline void optim_sqrt_block(double* x, int64_t n) {
  int64_t j = 0;
#if defined(__AVX512F__)
  for (; j + 8 <= n; j += 8)
    _mm512_storeu_pd(x + j, _mm512_maskz_sqrt_pd(0xFF, _mm512_loadu_pd(x + j)));
#elif defined(__AVX__)
  for (; j + 4 <= n; j += 4) _mm256_storeu_pd(x + j, _mm256_sqrt_pd(_mm256_loadu_pd(x + j)));
#endif
  for (; j < n; ++j) x[j] = std::sqrt(x[j]);
}

/// Elements per block of the staged loop: the scratch (4 arrays) stays in L1.
constexpr int kOptimBlock = 256;

/// Asks for the parameter's lines of elements [i, min(i + kOptimBlock, hi)) for writing
/// (PREFETCHW where the target has it) one block ahead of the update.
/// Why: on two threads the forward's GEMMs leave the parameters in both cores' caches, and the
/// update's read-then-write of a line shared that way takes two trips (a load, then a second one
/// to invalidate the other core's copy when the store commits); asked for writing, it takes one.
/// The state buffers are touched by the update alone, so asking for them gains nothing (with
/// them too, Adam's step was 2% slower). Measured on a 2-core Intel Xeon (Sapphire Rapids class),
/// 2 threads: the SGD update after backward of MLP 784-512-256-10 213-217 -> 135-139 us (a second
/// update straight after the first, nothing shared any more, took 125-136 us either way); the
/// SGD step (ember_compare_train_step mlp_sgd 2, 4 interleaved pairs) 1.03 -> 0.95 ms, the
/// F-MNIST MLP epoch 0.99-1.05 -> 0.91-0.94 s; Adam's step and one thread unchanged.
template <class T>
inline void optim_prefetch_param_for_write(const OptimTensor& t, int64_t i, int64_t hi) {
  const int64_t end = std::min<int64_t>(i + kOptimBlock, hi);
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  T* const param = static_cast<T*>(t.param);
  for (int64_t j = i; j < end; j += kLine) __builtin_prefetch(param + j, 1, 3);
  // A block that starts inside a line ends inside one the loop above stepped over.
  if (end > i) __builtin_prefetch(param + end - 1, 1, 3);
}

/// Elements [lo, hi) of one tensor through variant V of Step: block by block, the first stage,
/// the roots, the second stage.
template <int V, class T, class Step>
void optim_run_variant(const Step& step, const OptimTensor& t, int64_t lo, int64_t hi) {
  using M = typename Step::M;
  OptimScratch<M, kOptimBlock> scratch;
  for (int64_t b = lo; b < hi; b += kOptimBlock) {
    const int n = static_cast<int>(std::min<int64_t>(kOptimBlock, hi - b));
    optim_prefetch_param_for_write<T>(t, b + kOptimBlock, hi);
#pragma omp simd
    for (int j = 0; j < n; ++j) step.template first<V>(b + j, j, scratch);
    if constexpr (Step::kSqrts > 0) {
      optim_sqrt_block(scratch.s[0], n);
      if constexpr (Step::kSqrts > 1) optim_sqrt_block(scratch.s[1], n);
#pragma omp simd
      for (int j = 0; j < n; ++j) step.template second<V>(b + j, j, scratch);
    }
  }
}

/// Picks the compile-time variant of the functor's options.
template <class T, int V = 0, class Step>
void optim_run(const Step& step, const OptimTensor& t, int64_t lo, int64_t hi) {
  if constexpr (V < Step::kVariants) {
    if (step.variant() == V)
      optim_run_variant<V, T>(step, t, lo, hi);
    else
      optim_run<T, V + 1>(step, t, lo, hi);
  }
}

/// The CPU kernel of a family: Step<T>(params, tensor) over every element of every tensor.
template <template <class> class Step, class Params>
void cpu_optim_update(ScalarType dtype, const Params& params) {
  visit_optim_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    optim_for_each(params.list, [&](const OptimTensor& t, int64_t lo, int64_t hi) {
      optim_run<T>(Step<T>(params, t), t, lo, hi);
    });
  });
}

}  // namespace ember::kernels
