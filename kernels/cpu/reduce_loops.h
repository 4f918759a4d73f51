// The generic CPU reduction loop: reduce_cpu<T>(loop, op) folds the reduced dims of a strided input
// into each output element with accumulator functor `op` (kernels/common/reduce_ops.h).
//
// Three shapes of work, picked from the coalesced strides:
//   inner   the innermost reduced dim is dense: each output folds dense runs with 16-32
//           independent lanes (4 AVX2 registers, so the compiler vectorises it) through cascade
//           levels of 16 terms, so the error of a float sum stays a few dozen eps instead of
//           growing like n·eps, as with PyTorch's cascade sum. A float32 sum of a dense run of
//           4096 or more reads it as four quarters side by side (sum_f32_streams): one core keeps
//           more reads in flight for four streams than for one.
//   outer   the innermost kept dim is dense in the input (sum over dim 0 of a row-major matrix):
//           a tile of up to 256 adjacent outputs is accumulated row by row, vectorised across the
//           tile, through cascade levels of 16 terms each.
//   strided neither: one output at a time, element by element, in pairwise-combined blocks.
// Threads split the outputs when there are enough of them, else the reduced range of each output
// (a full a.sum() over 16M floats gives each thread one contiguous half). Work below
// kReduceGrain input elements stays on the calling thread.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "ember/core/threads.h"
#include "kernels/common/reduce_ops.h"
#include "kernels/cpu/vec_math.h"
#include "src/core/parallel.h"

namespace ember::kernels {

/// Input elements one task should cover before another thread is worth waking (~10-20 us of sum).
constexpr int64_t kReduceGrain = 32768;
/// Strided elements folded sequentially before joining the pairwise combination.
constexpr int64_t kStridedBlock = 16;

template <class Op>
using acc_of = typename Op::acc_t;

#ifdef EMBER_VEC_F32_LANES
/// The cascade of one stream of sum_f32_streams: 16 lanes per level, 16 merges per level before
/// a carry, so no partial sum takes more than 16 sequential terms per level. The caller adds each
/// group into level 0 with vector adds; carry() moves a full level 0 upwards. carry() is out of
/// line on purpose: inlined, GCC splits the levels into dozens of register variables and spills
/// them all around the hot loop.
struct SumCascadeF32 {
  static constexpr int kL = 16, kLevels = 6;
  static constexpr int64_t kFan = 16;
  alignas(64) float lv[kLevels][kL];
  int64_t cnt[kLevels] = {};  // merges held by each level (0: empty)

  __attribute__((noinline)) void carry() {
    for (int l = 0; l + 1 < kLevels; ++l) {
      for (int j = 0; j < kL; ++j)
        lv[l + 1][j] = cnt[l + 1] == 0 ? lv[l][j] : lv[l + 1][j] + lv[l][j];
      cnt[l] = 0;
      if (++cnt[l + 1] != kFan) break;
    }
  }
  /// Higher levels hold earlier elements: combined top-down, then across lanes as a tree.
  float result() const {
    float lane[kL] = {};
    for (int l = kLevels - 1; l >= 0; --l)
      if (cnt[l] != 0)
        for (int j = 0; j < kL; ++j) lane[j] += lv[l][j];
    for (int w = kL / 2; w >= 1; w /= 2)
      for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
    return lane[0];
  }
};

/// The float32 sum of a dense run, read as four contiguous quarters side by side, each with 16
/// lanes and a cascade of its own. Why four streams: one core's read bandwidth is bounded by the
/// misses it keeps in flight, and the hardware prefetchers keep more in flight for several
/// streams than for one. On the AVX2 EPYC, 64 MiB read by one thread with 8 registers of
/// accumulators (medians of 40 interleaved runs): 1 stream 14.7-15.6 GB/s, 2 streams 17.2-18.4,
/// 4 streams 20.3-21.8, 8 streams no more. (ATen reads one stream: 11-13 GB/s here.)
inline float sum_f32_streams(const float* __restrict__ p, int64_t n) {
  constexpr int kStreams = 4, kL = SumCascadeF32::kL, kRegs = kL / vec::kLanes;
  const int64_t part = n / kStreams / kL * kL;  // each stream's length, whole chunks only
  SumCascadeF32 cascade[kStreams];
  for (int64_t i = 0; i < part;) {
    const int64_t chunks = std::min<int64_t>(SumCascadeF32::kFan, (part - i) / kL);
    vec::F acc[kStreams][kRegs];
    for (int s = 0; s < kStreams; ++s)
      for (int r = 0; r < kRegs; ++r) acc[s][r] = vec::set1(0.0f);
    for (int64_t c = 0; c < chunks; ++c, i += kL)
      for (int s = 0; s < kStreams; ++s)
        for (int r = 0; r < kRegs; ++r)
          acc[s][r] = vec::add(acc[s][r], vec::load(p + s * part + i + r * vec::kLanes));
    const bool first = cascade[0].cnt[0] == 0;  // the streams move in step
    for (int s = 0; s < kStreams; ++s) {
      float* l0 = cascade[s].lv[0];
      for (int r = 0; r < kRegs; ++r) {
        float* q = l0 + r * vec::kLanes;
        vec::store(q, first ? acc[s][r] : vec::add(vec::load(q), acc[s][r]));
      }
      if (++cascade[s].cnt[0] == SumCascadeF32::kFan) cascade[s].carry();
    }
  }
  float tail = 0.0f;  // fewer than kStreams * kL elements
  for (const float* q = p + kStreams * part; q < p + n; ++q) tail += *q;
  return ((cascade[0].result() + cascade[1].result()) +
          (cascade[2].result() + cascade[3].result())) +
         tail;
}

/// Dense float32 runs from this length on are summed by sum_f32_streams.
constexpr int64_t kStreamSumMin = 4096;

template <class T, class Op>
struct IsFloatSum : std::false_type {};
template <class Out>
struct IsFloatSum<float, SumReduce<float, Out>> : std::true_type {};
#endif

/// Folds a dense run with independent lanes (16-32: 4 AVX2 registers, so the compiler
/// vectorises the fold) and a cascade: a group of 16 chunks is folded in registers, then merged
/// into level 0; 16 merges of level l move up into level l+1. No partial sum takes more than 16
/// sequential terms per level (a long sequential float sum errs by up to n·eps/4, worst for
/// equal values), and the cascade costs one merge per 16 chunks where combining per-block
/// scalars pairwise costs a lane tree per block (~30% of a memory-bound sum). The lanes are
/// combined as a tree once, at the end.
template <class T, class Op>
EMBER_ALWAYS_INLINE acc_of<Op> lanes_block(const Op& op, const T* __restrict__ p, int64_t n) {
  using A = acc_of<Op>;
#ifdef EMBER_VEC_F32_LANES
  // Below 16 KiB the run is in cache and the four cascades' set-up would dominate (n = 10:
  // 37 -> 102 ns); the plain body keeps short rows (softmax, cross_entropy) as fast as before.
  if constexpr (IsFloatSum<T, Op>::value)
    if (n >= kStreamSumMin) return sum_f32_streams(p, n);
#endif
  // 8 AVX2 registers of lanes: enough independent adds in flight to hide their latency.
  constexpr int kL = sizeof(A) >= 8 ? 32 : 64;
  constexpr int64_t kFan = 16;
  constexpr int kLevels = 6;  // 16^6 groups (over 10^9 elements) before the top level grows
  A lv[kLevels][kL];
  int64_t cnt[kLevels] = {};  // merges held by each level (0: empty)
  int64_t i = 0;
  while (i + kL <= n) {
    const int64_t chunks = std::min<int64_t>(kFan, (n - i) / kL);
    A acc[kL];
    for (int j = 0; j < kL; ++j) acc[j] = op.identity();
    for (int64_t c = 0; c < chunks; ++c, i += kL)
      for (int j = 0; j < kL; ++j) acc[j] = op.reduce(acc[j], p[i + j], 0);
    if (cnt[0] == 0) {
      for (int j = 0; j < kL; ++j) lv[0][j] = acc[j];
    } else {
      for (int j = 0; j < kL; ++j) lv[0][j] = op.combine(lv[0][j], acc[j]);
    }
    for (int l = 0; ++cnt[l] == kFan && l + 1 < kLevels; ++l) {
      if (cnt[l + 1] == 0) {
        for (int j = 0; j < kL; ++j) lv[l + 1][j] = lv[l][j];
      } else {
        for (int j = 0; j < kL; ++j) lv[l + 1][j] = op.combine(lv[l + 1][j], lv[l][j]);
      }
      cnt[l] = 0;
    }
  }
  // Higher levels hold earlier elements: combine top-down, then across lanes.
  A lane[kL];
  for (int j = 0; j < kL; ++j) lane[j] = op.identity();
  for (int l = kLevels - 1; l >= 0; --l)
    if (cnt[l] != 0)
      for (int j = 0; j < kL; ++j) lane[j] = op.combine(lane[j], lv[l][j]);
  for (int w = kL / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) lane[j] = op.combine(lane[j], lane[j + w]);
  A tail = op.identity();
  for (const T* q = p + i; q < p + n; ++q) tail = op.reduce(tail, *q, 0);
  return op.combine(lane[0], tail);
}

/// Sum of f(x) over a dense run in double lanes (the two passes of a moments block).
template <class T, class F>
EMBER_ALWAYS_INLINE double lanes_sum_double(const T* __restrict__ p, int64_t n, const F& f) {
  constexpr int kL = 16;
  double lane[kL] = {};
  int64_t i = 0;
  for (; i + kL <= n; i += kL)
    for (int j = 0; j < kL; ++j)
      lane[j] += f(static_cast<double>(static_cast<opmath_t<T>>(p[i + j])));
  double tail = 0;
  for (; i < n; ++i) tail += f(static_cast<double>(static_cast<opmath_t<T>>(p[i])));
  for (int w = kL / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
  return lane[0] + tail;
}

/// Pairwise combination of a stream of block results: levels[l] holds the merge of 2^l blocks,
/// so n blocks are combined in a tree of depth log2(n) while keeping their order.
template <class Op>
struct Pairwise {
  using A = acc_of<Op>;
  const Op& op;
  A levels[64];
  int64_t count = 0;
  explicit Pairwise(const Op& o) : op(o) {}
  EMBER_ALWAYS_INLINE void push(A v) {
    int lvl = 0;
    for (int64_t c = count; c & 1; c >>= 1, ++lvl) v = op.combine(levels[lvl], v);
    levels[lvl] = v;
    ++count;
  }
  A result() const {
    A r = op.identity();
    for (int lvl = 63; lvl >= 0; --lvl)
      if ((count >> lvl) & 1) r = op.combine(r, levels[lvl]);
    return r;
  }
};

template <class Op>
struct IsArgReduce : std::false_type {};
template <class T, bool kMax>
struct IsArgReduce<ArgReduce<T, kMax>> : std::true_type {
  using MinMax = MinMaxReduce<T, kMax>;
};

/// The first i with p[i] == m (or p[i] NaN when m is NaN); m must occur in p[0..n). Tests 32
/// elements at a time with a branch-free (vectorised) OR before looking closer.
template <class T, class M>
int64_t first_index_of(const T* __restrict__ p, int64_t n, M m) {
  const bool nan = red_isnan(m);
  auto hit = [nan, m](T x) {
    const M v = static_cast<M>(x);
    return nan ? red_isnan(v) : v == m;
  };
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    int32_t hits = 0;
    if (nan) {
      for (int j = 0; j < 32; ++j) hits += red_isnan(static_cast<M>(p[i + j]));
    } else {
      for (int j = 0; j < 32; ++j) hits += static_cast<M>(p[i + j]) == m;
    }
    if (hits) break;
  }
  while (i < n - 1 && !hit(p[i])) ++i;
  return i;
}

/// Folds the dense run p[0..n) (reduced indices idx0..idx0+n) into a fresh accumulator.
template <class T, class Op>
acc_of<Op> reduce_contig(const Op& op, const T* p, int64_t n, int64_t idx0) {
  using A = acc_of<Op>;
  if constexpr (IsArgReduce<Op>::value) {
    // argmax/argmin: the extreme value of an L1-sized block with vectorised lanes (NaN wins),
    // then, only when it beats the result so far, the first index holding it: 2-2.5x faster
    // than tracking (value, index) element by element ([4096, 1024].argmax(1): 3.1 -> 1.3 ms).
    using M = typename Op::M;
    constexpr int64_t kArgBlock = 4096;
    A acc = op.identity();
    for (int64_t b = 0; b < n; b += kArgBlock) {
      const int64_t nb = std::min(kArgBlock, n - b);
      const M m = lanes_block(typename IsArgReduce<Op>::MinMax{}, p + b, nb);
      if (acc.i >= 0 && !Op::better(m, acc.v)) continue;
      acc = {m, idx0 + b + first_index_of(p + b, nb, m)};
    }
    return acc;
  } else if constexpr (Op::kMoments) {
    // Two passes per L1-sized block (mean, then squared deviations), blocks merged with Chan's
    // formula: vectorised and as accurate as a two-pass variance.
    A acc = op.identity();
    constexpr int64_t kMomentsBlock = 4096;  // 16 KB of floats: the second pass hits L1
    for (int64_t b = 0; b < n; b += kMomentsBlock) {
      const int64_t nb = std::min(kMomentsBlock, n - b);
      const double mean = lanes_sum_double(p + b, nb, [](double x) { return x; }) / double(nb);
      const double m2 =
          lanes_sum_double(p + b, nb, [mean](double x) { return (x - mean) * (x - mean); });
      acc = combine_moments(acc, Moments{mean, m2, nb});
    }
    return acc;
  } else if constexpr (Op::kLanes) {
    return lanes_block(op, p, n);
  } else {
    A a = op.identity();
    for (int64_t i = 0; i < n; ++i) a = op.reduce(a, p[i], idx0 + i);
    return a;
  }
}

/// Walks the reduced positions of one output in flat order, tracking the input byte offset.
struct RedWalker {
  const ReduceLoop& L;
  int64_t idx[kMaxLoopDims];
  int64_t off = 0;
  RedWalker(const ReduceLoop& loop, int64_t pos) : L(loop) {
    for (int d = 0; d < L.red_ndim; ++d) {
      idx[d] = pos % L.red_sizes[d];
      pos /= L.red_sizes[d];
      off += idx[d] * L.red_strides[d];
    }
  }
  /// Moves n positions along dim 0 (n <= what is left of the current run), carrying outward.
  EMBER_ALWAYS_INLINE void advance(int64_t n) {
    idx[0] += n;
    off += n * L.red_strides[0];
    if (idx[0] < L.red_sizes[0]) return;
    off -= idx[0] * L.red_strides[0];
    idx[0] = 0;
    for (int d = 1; d < L.red_ndim; ++d) {
      ++idx[d];
      off += L.red_strides[d];
      if (idx[d] < L.red_sizes[d]) return;
      off -= idx[d] * L.red_strides[d];
      idx[d] = 0;
    }
  }
};

/// Folds reduced positions [begin, end) of the output whose input starts at `base`. For the
/// summing ops, results of dense blocks and of kStridedBlock strided elements are combined
/// pairwise, so a long strided sum stays accurate too.
template <class T, class Op>
acc_of<Op> reduce_range(const Op& op, const ReduceLoop& L, const char* base, int64_t begin,
                        int64_t end) {
  using A = acc_of<Op>;
  RedWalker w(L, begin);
  const int64_t n0 = L.red_sizes[0], s0 = L.red_strides[0];
  const bool dense = s0 == static_cast<int64_t>(sizeof(T));
  if constexpr (Op::kLanes) {
    Pairwise<Op> pw(op);
    A blk = op.identity();
    int64_t in_blk = 0;
    for (int64_t pos = begin; pos < end;) {
      const int64_t n = std::min(n0 - w.idx[0], end - pos);
      const char* p = base + w.off;
      if (dense && n > 1) {
        pw.push(lanes_block(op, reinterpret_cast<const T*>(p), n));
      } else {
        for (int64_t i = 0; i < n; ++i) {
          blk = op.reduce(blk, *reinterpret_cast<const T*>(p + i * s0), 0);
          if (++in_blk == kStridedBlock) {
            pw.push(blk);
            blk = op.identity();
            in_blk = 0;
          }
        }
      }
      pos += n;
      if (pos < end) w.advance(n);
    }
    if (in_blk) pw.push(blk);
    return pw.result();
  } else {
    A acc = op.identity();
    for (int64_t pos = begin; pos < end;) {
      const int64_t n = std::min(n0 - w.idx[0], end - pos);
      const char* p = base + w.off;
      if (dense && n > 1) {
        acc = op.combine(acc, reduce_contig(op, reinterpret_cast<const T*>(p), n, pos));
      } else {
        for (int64_t i = 0; i < n; ++i)
          acc = op.reduce(acc, *reinterpret_cast<const T*>(p + i * s0), pos + i);
      }
      pos += n;
      if (pos < end) w.advance(n);
    }
    return acc;
  }
}

/// Input and output offsets of output element o.
EMBER_ALWAYS_INLINE void output_offsets(const ReduceLoop& L, int64_t o, int64_t& in_off,
                                        int64_t& out_off) {
  in_off = 0;
  out_off = 0;
  for (int d = 0; d < L.out_ndim && o; ++d) {
    const int64_t i = o % L.out_sizes[d];
    o /= L.out_sizes[d];
    in_off += i * L.out_in_strides[d];
    out_off += i * L.out_strides[d];
  }
}

/// Outer reduction: accumulates tiles of W outputs that are adjacent in the input, row by row.
template <class T, class Op>
void reduce_outer(const Op& op, const ReduceLoop& L, int threads) {
  using A = acc_of<Op>;
  // Tile width: 1 KB of input per row, at most 2 KB of accumulators per cascade level.
  constexpr int64_t W = std::min<int64_t>(sizeof(T) >= 8 ? 128 : 256, 2048 / sizeof(A));
  constexpr int64_t kCascade = 16;  // terms per cascade level
  constexpr int kLevels = 6;        // 16^5 rows before the top level sums sequentially
  const int64_t n0 = L.out_sizes[0];
  const int64_t tiles0 = (n0 + W - 1) / W;
  const int64_t ntasks = tiles0 * (L.out_numel / n0);
  // Too few tiles for the threads: split the reduced rows as well and merge the partial tiles.
  int64_t nsplit = 1;
  if (ntasks < threads && L.red_numel * std::min(n0, W) >= 2 * kReduceGrain)
    nsplit = std::min<int64_t>(threads, L.red_numel / 64);
  nsplit = std::max<int64_t>(nsplit, 1);
  // Not std::vector<A>: for all/any, A is bool, and std::vector<bool> packs bits, so threads
  // writing neighbouring slots would race on one word (seen as all() spuriously false).
  std::unique_ptr<A[]> partial(new A[nsplit > 1 ? static_cast<size_t>(nsplit * ntasks * W) : 0]());

  auto run_unit = [&](int64_t unit) {
    const int64_t task = unit % ntasks, split = unit / ntasks;
    const int64_t j0 = (task % tiles0) * W, w = std::min(W, n0 - j0);
    int64_t in_off, out_off;
    output_offsets(L, (task / tiles0) * n0, in_off, out_off);
    const char* base = L.in + in_off + j0 * L.out_in_strides[0];
    const int64_t per = (L.red_numel + nsplit - 1) / nsplit;
    const int64_t rb = std::min(L.red_numel, split * per), re = std::min(L.red_numel, rb + per);
    // Cascade levels per output: rows fold into lvl[0]; every kCascade folds a level into the
    // next, so each partial sum takes at most kCascade terms.
    A lvl[kLevels][W];
    int64_t cnt[kLevels] = {};
    for (int l = 0; l < kLevels; ++l)
      for (int64_t j = 0; j < w; ++j) lvl[l][j] = op.identity();
    RedWalker walk(L, rb);
    for (int64_t pos = rb; pos < re; ++pos) {
      const T* __restrict__ row = reinterpret_cast<const T*>(base + walk.off);
      A* __restrict__ blk = lvl[0];
      if (w == W) {
        for (int64_t j = 0; j < W; ++j) blk[j] = op.reduce(blk[j], row[j], pos);
      } else {
        for (int64_t j = 0; j < w; ++j) blk[j] = op.reduce(blk[j], row[j], pos);
      }
      for (int l = 0; l + 1 < kLevels && ++cnt[l] == kCascade; ++l) {
        for (int64_t j = 0; j < w; ++j) {
          lvl[l + 1][j] = op.combine(lvl[l + 1][j], lvl[l][j]);
          lvl[l][j] = op.identity();
        }
        cnt[l] = 0;
      }
      if (pos + 1 < re) walk.advance(1);
    }
    A total[W];
    for (int64_t j = 0; j < w; ++j) {
      total[j] = lvl[kLevels - 1][j];
      for (int l = kLevels - 2; l >= 0; --l) total[j] = op.combine(total[j], lvl[l][j]);
    }
    if (nsplit == 1) {
      for (int64_t j = 0; j < w; ++j)
        op.project(total[j], L.out, out_off + (j0 + j) * L.out_strides[0]);
    } else {
      std::copy(total, total + w, partial.get() + (split * ntasks + task) * W);
    }
  };
  const int64_t work_per_unit = std::max<int64_t>(1, std::min(n0, W) * (L.red_numel / nsplit));
  parallel_for(0, ntasks * nsplit, std::max<int64_t>(1, kReduceGrain / work_per_unit),
               [&](int64_t b, int64_t e) {
                 for (int64_t u = b; u < e; ++u) run_unit(u);
               });
  if (nsplit == 1) return;
  for (int64_t task = 0; task < ntasks; ++task) {
    const int64_t j0 = (task % tiles0) * W, w = std::min(W, n0 - j0);
    int64_t in_off, out_off;
    output_offsets(L, (task / tiles0) * n0, in_off, out_off);
    for (int64_t j = 0; j < w; ++j) {
      A acc = partial[task * W + j];
      for (int64_t s = 1; s < nsplit; ++s)
        acc = op.combine(acc, partial[(s * ntasks + task) * W + j]);
      op.project(acc, L.out, out_off + (j0 + j) * L.out_strides[0]);
    }
  }
}

/// Reduces L (input of C++ type T) with accumulator functor op.
template <class T, class Op>
void reduce_cpu(const ReduceLoop& L, const Op& op) {
  using A = acc_of<Op>;
  if (L.out_numel == 0) return;
  if (L.red_numel == 0) {
    parallel_for(0, L.out_numel, kReduceGrain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        int64_t in_off, out_off;
        output_offsets(L, o, in_off, out_off);
        op.project(op.identity(), L.out, out_off);
      }
    });
    return;
  }
  const int threads = get_num_threads();
  const int64_t item = sizeof(T);
  const bool red_dense = L.red_strides[0] == item && L.red_sizes[0] > 1;
  const bool out_dense = L.out_in_strides[0] == item && L.out_sizes[0] > 1;

  if (!red_dense && out_dense && L.out_sizes[0] >= 8) {
    reduce_outer<T>(op, L, threads);
    return;
  }
  if (L.out_numel < threads && L.red_numel >= 2 * kReduceGrain) {
    // Few long reductions (a full sum): each thread folds a contiguous slice of the reduced range,
    // and the slices are combined in order.
    const int64_t chunks = std::min<int64_t>(threads, L.red_numel / kReduceGrain);
    const int64_t per = (L.red_numel + chunks - 1) / chunks;
    std::unique_ptr<A[]> partial(new A[static_cast<size_t>(chunks)]());  // not vector<bool>: above
    for (int64_t o = 0; o < L.out_numel; ++o) {
      int64_t in_off, out_off;
      output_offsets(L, o, in_off, out_off);
      parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c)
          partial[c] =
              reduce_range<T>(op, L, L.in + in_off, c * per, std::min(L.red_numel, (c + 1) * per));
      });
      A acc = partial[0];
      for (int64_t c = 1; c < chunks; ++c) acc = op.combine(acc, partial[c]);
      op.project(acc, L.out, out_off);
    }
    return;
  }
  parallel_for(
      0, L.out_numel, std::max<int64_t>(1, kReduceGrain / L.red_numel), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          int64_t in_off, out_off;
          output_offsets(L, o, in_off, out_off);
          op.project(reduce_range<T>(op, L, L.in + in_off, 0, L.red_numel), L.out, out_off);
        }
      });
}

}  // namespace ember::kernels
