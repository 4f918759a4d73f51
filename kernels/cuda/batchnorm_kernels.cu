// CUDA kernels of batch, instance and group normalisation over an [N, C, S] view (the
// `batch_norm_stats`, `batch_norm_reduce` and `batch_norm_apply` slots; operands in
// kernels/common/batchnorm_params.h), numerically as the CPU kernels of
// kernels/cpu/batchnorm_kernels.cpp: every sum in double whatever the dtype (the interface's
// contract), exact two-pass statistics (the mean, then the centred sum of squares), biased
// variance, and the apply pass in float for 16-bit / float32 tensors and in double for float64
// ones, with the per-slot coefficients rounded to that type.
//
// Sums are deterministic (no atomics): each slot's elements are cut into a fixed number of chunks
// (a function of the sizes and the SM count only), a block sums one chunk in a fixed thread order
// and a fixed tree, and a second kernel adds each slot's chunk sums in chunk order. Two block
// shapes, by where a slot's elements lie:
//   NCHW           a slot is runs of S contiguous elements: 256 threads stride over the chunk.
//   channels-last  a slot is a column of a [rows, C] matrix: a block covers 32 adjacent channels
//                  (one coalesced load per row) with 8 threads down the rows, folded in order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/core/half.h"
#include "ember/core/storage.h"
#include "kernels/common/batchnorm_params.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/row_reduce.cuh"

namespace ember::kernels::cuda {
namespace {

template <class T>
using bn_compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr int kBnRowThreads = 256;
constexpr int kBnColTile = kWarpSize;  // channels a channels-last block covers
constexpr int kBnColRows = 8;          // threads down the rows of a channels-last block
constexpr int kBnCombineThreads = 256;
constexpr int kBnApplyThreads = 256;
// At least this many elements (NCHW) or rows (channels-last) a chunk, so the second pass stays
// small next to the first.
constexpr int64_t kBnMinChunkElems = 4096;
constexpr int64_t kBnMinChunkRows = 64;

// Blocks of `threads` for `blocks` blocks of work: at most one wave (2048 resident threads per
// SM on sm_90), the kernels loop over the rest.
unsigned bn_wave_grid(int64_t blocks, int threads) {
  const int64_t cap = static_cast<int64_t>(cuda_detail::sm_count()) * (2048 / threads);
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

// Elements of one statistics slot.
int64_t bn_slot_count(const ChannelLayout& L) { return L.per_sample ? L.s : L.n * L.s; }

// ---- what is summed: K per-slot sums of a function of one element ----

// Σ x.
template <class T>
struct BnSumX {
  static constexpr int K = 1;
  const T* x;
  __device__ void operator()(int64_t slot, int64_t off, double (&acc)[K]) const {
    acc[0] += static_cast<double>(x[off]);
  }
};

// Σ (x - mean[slot])².
template <class T>
struct BnSumSquaredDev {
  static constexpr int K = 1;
  const T* x;
  const double* mean;
  __device__ void operator()(int64_t slot, int64_t off, double (&acc)[K]) const {
    const double d = static_cast<double>(x[off]) - mean[slot];
    acc[0] += d * d;
  }
};

// Σ grad and Σ grad·(x - center[slot]) (center null: 0).
template <class T>
struct BnSumGrad {
  static constexpr int K = 2;
  const T* grad;
  const T* x;
  const double* center;
  __device__ void operator()(int64_t slot, int64_t off, double (&acc)[K]) const {
    const double g = static_cast<double>(grad[off]);
    const double m = center ? center[slot] : 0.0;
    acc[0] += g;
    acc[1] += g * (static_cast<double>(x[off]) - m);
  }
};

// The chunk split of one call: `chunks` chunks of `per_chunk` elements (NCHW) or rows
// (channels-last) per slot; partial sum k of (slot, chunk) at ws[(k·slots + slot)·chunks + chunk].
struct BnSplit {
  int64_t chunks = 1, per_chunk = 0;
};

// Chunks enough to fill about one wave of `units` blocks, each at least `min_len` long, none
// empty.
BnSplit bn_split(int64_t len, int64_t units, int64_t min_len, int threads) {
  BnSplit s;
  if (len <= 0 || units <= 0) return s;
  const int64_t wave = static_cast<int64_t>(cuda_detail::sm_count()) * (2048 / threads);
  int64_t chunks = units >= wave ? 1 : (wave + units - 1) / units;
  chunks = std::max<int64_t>(1, std::min(chunks, (len + min_len - 1) / min_len));
  s.per_chunk = (len + chunks - 1) / chunks;
  s.chunks = (len + s.per_chunk - 1) / s.per_chunk;
  return s;
}

// The block's K sums, every thread getting them (all threads of the block must call it).
template <int K>
__device__ void bn_block_sum(double (&acc)[K], double* smem) {
  const BlockRowReduce<double> red{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                                   smem};
  if constexpr (K == 1)
    acc[0] = red.sum(acc[0]);
  else
    red.sum2(acc[0], acc[1]);
}

// NCHW: block unit u = slot·chunks + chunk sums the chunk's elements j of the slot, element j at
// slot·S + j (per sample) or (n·C + slot)·S + s with j = n·S + s (per channel).
template <class F>
__global__ void __launch_bounds__(kBnRowThreads)
    bn_row_partials_kernel(ChannelLayout L, F f, BnSplit split, double* ws) {
  __shared__ double smem[2 * kWarpSize];
  constexpr int K = F::K;
  // (ChannelLayout's helpers are host-only.)
  const int64_t slots = L.per_sample ? L.n * L.c : L.c, count = L.per_sample ? L.s : L.n * L.s;
  const int64_t S = L.s;
  const int64_t units = slots * split.chunks, B = blockDim.x;
  // u depends on the block only, so every thread runs the same trips and meets the barriers.
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t slot = u / split.chunks, chunk = u % split.chunks;
    const int64_t j0 = chunk * split.per_chunk;
    const int64_t j1 = j0 + split.per_chunk < count ? j0 + split.per_chunk : count;
    double acc[K] = {};
    if (L.per_sample) {
      const int64_t base = slot * S;
      for (int64_t j = j0 + threadIdx.x; j < j1; j += B) f(slot, base + j, acc);
    } else {
      // j = n·S + s, advanced by B a trip without a division per element (S > 0 when
      // there is an element).
      int64_t j = j0 + threadIdx.x;
      if (j < j1) {
        int64_t n = j / S, s = j - n * S;
        for (; j < j1; j += B) {
          f(slot, (n * L.c + slot) * S + s, acc);
          s += B;
          if (s >= S) {
            const int64_t q = s / S;
            n += q;
            s -= q * S;
          }
        }
      }
    }
    bn_block_sum<K>(acc, smem);
    if (threadIdx.x == 0)
      for (int k = 0; k < K; ++k) ws[(k * slots + slot) * split.chunks + chunk] = acc[k];
  }
}

// Channels-last: element (n, c, s) at (n·S + s)·C + c. A per-channel slot is column c of the
// [N·S, C] matrix; a per-sample slot n·C + c column c of sample n's [S, C] block. Block unit u =
// (group, tile, chunk) (group: the sample for per-sample slots, else 0) sums rows
// [chunk·per_chunk, ...) of columns tile·32 + tx; thread (tx, ty) takes rows ty, ty + 8, ..., and
// the 8 partial sums are added in ty order.
template <class F>
__global__ void __launch_bounds__(kBnColTile* kBnColRows)
    bn_col_partials_kernel(ChannelLayout L, F f, BnSplit split, double* ws) {
  constexpr int K = F::K;
  __shared__ double part[K][kBnColRows][kBnColTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t C = L.c, slots = L.per_sample ? L.n * L.c : L.c;
  const int64_t groups = L.per_sample ? L.n : 1, rows = L.per_sample ? L.s : L.n * L.s;
  const int64_t tiles = (C + kBnColTile - 1) / kBnColTile;
  const int64_t units = groups * tiles * split.chunks;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t chunk = u % split.chunks, gt = u / split.chunks;
    const int64_t tile = gt % tiles, group = gt / tiles;
    const int64_t c = tile * kBnColTile + tx;
    const int64_t slot = L.per_sample ? group * C + c : c;
    const int64_t r0 = chunk * split.per_chunk;
    const int64_t r1 = r0 + split.per_chunk < rows ? r0 + split.per_chunk : rows;
    const int64_t row_base = group * rows;  // 0 for per-channel slots
    double acc[K] = {};
    if (c < C)
      for (int64_t r = r0 + ty; r < r1; r += kBnColRows) f(slot, (row_base + r) * C + c, acc);
    for (int k = 0; k < K; ++k) part[k][ty][tx] = acc[k];
    __syncthreads();
    if (ty == 0 && c < C) {
      for (int k = 0; k < K; ++k) {
        double t = 0;
#pragma unroll
        for (int i = 0; i < kBnColRows; ++i) t += part[k][i][tx];
        ws[(k * slots + slot) * split.chunks + chunk] = t;
      }
    }
    __syncthreads();  // `part` is rewritten by the next unit
  }
}

// out_k[slot] = the slot's chunk sums added in chunk order, divided by `divisor` when it is not
// 0 (a mean) and left as sums when it is; a slot of no elements (divisor 0 with `mean`) gets 0.
template <int K>
struct BnOutputs {
  double* out[K];
};

template <int K>
__global__ void __launch_bounds__(kBnCombineThreads)
    bn_combine_kernel(int64_t slots, int64_t chunks, const double* ws, BnOutputs<K> outs, bool mean,
                      int64_t count) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t slot = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; slot < slots;
       slot += step) {
    for (int k = 0; k < K; ++k) {
      const double* w = ws + (k * slots + slot) * chunks;
      double t = 0;
      for (int64_t i = 0; i < chunks; ++i) t += w[i];
      if (mean) t = count > 0 ? t / static_cast<double>(count) : 0.0;
      outs.out[k][slot] = t;
    }
  }
}

// A device allocation from the caching allocator, handed back when the scope ends (stream order
// keeps it valid until the kernels queued before then have run).
class BnWorkspace {
 public:
  explicit BnWorkspace(size_t bytes) : ptr_(get_allocator(kCUDA)->allocate(bytes)) {}
  ~BnWorkspace() { ptr_.deleter(ptr_.ptr, ptr_.ctx); }
  BnWorkspace(const BnWorkspace&) = delete;
  BnWorkspace& operator=(const BnWorkspace&) = delete;
  double* data() const { return static_cast<double*>(ptr_.ptr); }

 private:
  DataPtr ptr_;
};

// outs[k][slot] = Σ over the slot's elements of f's k-th term (a mean with `mean`).
template <class F>
void bn_slot_sums(const ChannelLayout& L, const F& f, BnOutputs<F::K> outs, bool mean) {
  constexpr int K = F::K;
  const int64_t slots = L.slots();
  if (slots == 0) return;
  cudaStream_t stream = cuda_detail::current_stream();
  BnSplit split;
  if (!L.channels_last) {
    split = bn_split(bn_slot_count(L), slots, kBnMinChunkElems, kBnRowThreads);
  } else {
    const int64_t groups = L.per_sample ? L.n : 1;
    const int64_t tiles = (L.c + kBnColTile - 1) / kBnColTile;
    split = bn_split(L.per_sample ? L.s : L.n * L.s, groups * tiles, kBnMinChunkRows,
                     kBnColTile * kBnColRows);
  }
  BnWorkspace ws(static_cast<size_t>(K * slots * split.chunks) * sizeof(double));
  if (!L.channels_last) {
    bn_row_partials_kernel<F>
        <<<bn_wave_grid(slots * split.chunks, kBnRowThreads), kBnRowThreads, 0, stream>>>(
            L, f, split, ws.data());
  } else {
    const int64_t groups = L.per_sample ? L.n : 1;
    const int64_t tiles = (L.c + kBnColTile - 1) / kBnColTile;
    bn_col_partials_kernel<F>
        <<<bn_wave_grid(groups * tiles * split.chunks, kBnColTile * kBnColRows),
           dim3(kBnColTile, kBnColRows), 0, stream>>>(L, f, split, ws.data());
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
  const int64_t blocks = (slots + kBnCombineThreads - 1) / kBnCombineThreads;
  bn_combine_kernel<K><<<bn_wave_grid(blocks, kBnCombineThreads), kBnCombineThreads, 0, stream>>>(
      slots, split.chunks, ws.data(), outs, mean, bn_slot_count(L));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void bn_stats(const BatchNormStatsParams& p) {
  const T* x = static_cast<const T*>(p.x);
  bn_slot_sums(p.layout, BnSumX<T>{x}, BnOutputs<1>{{p.mean}}, /*mean=*/true);
  bn_slot_sums(p.layout, BnSumSquaredDev<T>{x, p.mean}, BnOutputs<1>{{p.var}}, /*mean=*/true);
}

template <class T>
void bn_reduce(const BatchNormReduceParams& p) {
  bn_slot_sums(p.layout,
               BnSumGrad<T>{static_cast<const T*>(p.grad), static_cast<const T*>(p.x), p.center},
               BnOutputs<2>{{p.sum_grad, p.sum_grad_x}}, /*mean=*/false);
}

// ---- apply: out = a·ka[slot] + b·kb[slot] + k0[slot] ----

template <class T>
struct BnApplyArgs {
  ChannelLayout L;
  const T* a;
  const double* ka;
  const T* b;  // null: no second term
  const double* kb;
  const double* k0;
  T* out;
};

template <class T>
__global__ void __launch_bounds__(kBnApplyThreads)
    bn_apply_kernel(BnApplyArgs<T> p, int64_t total) {
  using A = bn_compute_t<T>;
  const int64_t C = p.L.c, S = p.L.s;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    int64_t slot;
    if (!p.L.channels_last) {
      const int64_t r = i / S;  // r = n·C + c
      slot = p.L.per_sample ? r : r % C;
    } else {
      const int64_t c = i % C;
      slot = p.L.per_sample ? (i / (S * C)) * C + c : c;
    }
    // The coefficients rounded to the compute type first, as the CPU does.
    const A sa = static_cast<A>(p.ka[slot]), s0 = static_cast<A>(p.k0[slot]);
    A v;
    if (p.b)
      v = static_cast<A>(p.a[i]) * sa + static_cast<A>(p.b[i]) * static_cast<A>(p.kb[slot]) + s0;
    else
      v = static_cast<A>(p.a[i]) * sa + s0;
    p.out[i] = static_cast<T>(v);
  }
}

template <class T>
void bn_apply(const BatchNormApplyParams& p) {
  const ChannelLayout& L = p.layout;
  const int64_t total = L.n * L.c * L.s;
  if (total == 0) return;
  const BnApplyArgs<T> args{
      L,    static_cast<const T*>(p.a), p.ka, static_cast<const T*>(p.b), p.kb,
      p.k0, static_cast<T*>(p.out)};
  const int64_t blocks = (total + kBnApplyThreads - 1) / kBnApplyThreads;
  bn_apply_kernel<T><<<bn_wave_grid(blocks, kBnApplyThreads), kBnApplyThreads, 0,
                       cuda_detail::current_stream()>>>(args, total);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class Fn>
void bn_visit_dtype(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace

void cuda_batch_norm_stats(ScalarType dtype, const BatchNormStatsParams& p) {
  bn_visit_dtype(dtype, [&](auto tag) { bn_stats<typename decltype(tag)::type>(p); });
}
void cuda_batch_norm_reduce(ScalarType dtype, const BatchNormReduceParams& p) {
  bn_visit_dtype(dtype, [&](auto tag) { bn_reduce<typename decltype(tag)::type>(p); });
}
void cuda_batch_norm_apply(ScalarType dtype, const BatchNormApplyParams& p) {
  bn_visit_dtype(dtype, [&](auto tag) { bn_apply<typename decltype(tag)::type>(p); });
}

}  // namespace ember::kernels::cuda
