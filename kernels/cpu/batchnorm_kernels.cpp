// CPU kernels of batch, instance and group normalisation over an [N, C, S] view (see
// kernels/common/batchnorm_params.h).
//
// Why own loops rather than oneDNN's batch normalisation primitive: the same three loops serve
// batch norm (per-channel slots), instance norm and group norm (per-sample slots), both layouts
// (NCHW and channels-last, which stays channels-last), and every float dtype (oneDNN has no
// float64); the running-statistics update and the unbiased variance stay in the caller. Each
// kernel is one or two streaming passes: statistics read x twice (exact two-pass variance in
// double accumulators), the apply pass reads once and writes once with per-slot coefficients
// rounded to the compute type (float for float32/16-bit, double for float64), so the inner loops
// are plain multiply-adds the compiler vectorises.
//
// Sums over a contiguous run use kLanes independent double partial sums (no reassociation flags
// needed for SIMD); channels-last sums accumulate a row of C doubles per thread in fixed chunks and
// add the chunks in order, so results do not depend on the thread count's timing.
#include "kernels/cpu/batchnorm_kernels.h"

#include <algorithm>
#include <vector>

#include "ember/core/half.h"
#include "kernels/common/visit.h"
#include "src/core/parallel.h"

namespace ember::kernels {
namespace {

template <class T>
using bn_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr int kBnLanes = 8;

// Σ f(i) for i in [0, n) in double, in kBnLanes independent partial sums.
template <class F>
inline double bn_lane_sum(int64_t n, F f) {
  double part[kBnLanes] = {};
  int64_t i = 0;
  for (; i + kBnLanes <= n; i += kBnLanes)
    for (int k = 0; k < kBnLanes; ++k) part[k] += f(i + k);
  double total = 0;
  for (; i < n; ++i) total += f(i);
  for (int k = 0; k < kBnLanes; ++k) total += part[k];
  return total;
}

// Units of work per task for units of `size` elements: ~kElementwiseGrain elements per task.
int64_t bn_grain(int64_t size) {
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(size, 1));
}

// out[slot] = Σ over the slot's contiguous runs of run(offset, length, slot), for the NCHW
// layout: a per-sample slot is one run of S elements, a channel slot N runs.
template <class Run>
void bn_nchw_sums(const ChannelLayout& L, double* out, const Run& run) {
  const int64_t per_slot = L.per_sample ? L.s : L.n * L.s;
  parallel_for(0, L.slots(), bn_grain(per_slot), [&](int64_t s0, int64_t s1) {
    for (int64_t slot = s0; slot < s1; ++slot) {
      double t = 0;
      if (L.per_sample) {
        t = run(slot * L.s, L.s, slot);
      } else {
        for (int64_t n = 0; n < L.n; ++n) t += run((n * L.c + slot) * L.s, L.s, slot);
      }
      out[slot] = t;
    }
  });
}

// outs[k][slot] = Σ over the rows of the channels-last layout of what row(offset, acc, base)
// adds to acc[k·C + c], where a row is C contiguous channels (slots base..base+C) and k < K.
template <int K, class Row>
void bn_cl_sums(const ChannelLayout& L, double* const (&outs)[K], const Row& row) {
  const int64_t C = L.c;
  if (L.per_sample) {
    parallel_for(0, L.n, bn_grain(L.s * C), [&](int64_t n0, int64_t n1) {
      std::vector<double> acc(static_cast<size_t>(K * C));
      for (int64_t n = n0; n < n1; ++n) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t s = 0; s < L.s; ++s) row((n * L.s + s) * C, acc.data(), n * C);
        for (int k = 0; k < K; ++k)
          std::copy(acc.data() + k * C, acc.data() + (k + 1) * C, outs[k] + n * C);
      }
    });
    return;
  }
  const int64_t rows = L.n * L.s, grain = bn_grain(C);
  const int64_t chunks =
      std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), (rows + grain - 1) / grain));
  const int64_t per = (rows + chunks - 1) / chunks;
  std::vector<double> part(static_cast<size_t>(chunks * K * C), 0.0);
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t j = c0; j < c1; ++j) {
      double* acc = part.data() + j * K * C;
      for (int64_t r = j * per, e = std::min(rows, (j + 1) * per); r < e; ++r)
        row(r * C, acc, int64_t{0});
    }
  });
  for (int k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c) {
      double t = 0;
      for (int64_t j = 0; j < chunks; ++j) t += part[(j * K + k) * C + c];
      outs[k][c] = t;
    }
}

// Elements per slot: what the sums are divided by.
int64_t bn_slot_count(const ChannelLayout& L) { return L.per_sample ? L.s : L.n * L.s; }

template <class T>
void bn_stats(const BatchNormStatsParams& p) {
  const ChannelLayout& L = p.layout;
  const T* x = static_cast<const T*>(p.x);
  const int64_t count = bn_slot_count(L);
  const int64_t C = L.c;
  if (!L.channels_last) {
    bn_nchw_sums(L, p.mean, [&](int64_t off, int64_t len, int64_t) {
      return bn_lane_sum(len, [&](int64_t i) { return static_cast<double>(x[off + i]); });
    });
  } else {
    bn_cl_sums<1>(L, {p.mean}, [&](int64_t off, double* acc, int64_t) {
      for (int64_t c = 0; c < C; ++c) acc[c] += static_cast<double>(x[off + c]);
    });
  }
  const int64_t slots = L.slots();
  for (int64_t s = 0; s < slots; ++s) p.mean[s] = count > 0 ? p.mean[s] / count : 0.0;
  const double* mean = p.mean;
  if (!L.channels_last) {
    bn_nchw_sums(L, p.var, [&](int64_t off, int64_t len, int64_t slot) {
      const double m = mean[slot];
      return bn_lane_sum(len, [&](int64_t i) {
        const double d = static_cast<double>(x[off + i]) - m;
        return d * d;
      });
    });
  } else {
    bn_cl_sums<1>(L, {p.var}, [&](int64_t off, double* acc, int64_t base) {
      const double* m = mean + base;
      for (int64_t c = 0; c < C; ++c) {
        const double d = static_cast<double>(x[off + c]) - m[c];
        acc[c] += d * d;
      }
    });
  }
  for (int64_t s = 0; s < slots; ++s) p.var[s] = count > 0 ? p.var[s] / count : 0.0;
}

// One pass over grad and x per layout: both sums at once (the backward's only full read of x).
template <class T>
void bn_reduce(const BatchNormReduceParams& p) {
  const ChannelLayout& L = p.layout;
  const T* g = static_cast<const T*>(p.grad);
  const T* x = static_cast<const T*>(p.x);
  const int64_t C = L.c;
  std::vector<double> zero_center(p.center ? 0 : static_cast<size_t>(L.slots()), 0.0);
  const double* center = p.center ? p.center : zero_center.data();
  if (!L.channels_last) {
    const int64_t per_slot = L.per_sample ? L.s : L.n * L.s;
    parallel_for(0, L.slots(), bn_grain(per_slot), [&](int64_t s0, int64_t s1) {
      for (int64_t slot = s0; slot < s1; ++slot) {
        const double m = center[slot];
        double pg[kBnLanes] = {}, pgx[kBnLanes] = {};
        double tg = 0, tgx = 0;
        const int64_t runs = L.per_sample ? 1 : L.n;
        for (int64_t n = 0; n < runs; ++n) {
          const int64_t off = L.per_sample ? slot * L.s : (n * C + slot) * L.s;
          const T* gr = g + off;
          const T* xr = x + off;
          int64_t i = 0;
          for (; i + kBnLanes <= L.s; i += kBnLanes)
            for (int k = 0; k < kBnLanes; ++k) {
              const double gv = static_cast<double>(gr[i + k]);
              pg[k] += gv;
              pgx[k] += gv * (static_cast<double>(xr[i + k]) - m);
            }
          for (; i < L.s; ++i) {
            const double gv = static_cast<double>(gr[i]);
            tg += gv;
            tgx += gv * (static_cast<double>(xr[i]) - m);
          }
        }
        for (int k = 0; k < kBnLanes; ++k) {
          tg += pg[k];
          tgx += pgx[k];
        }
        p.sum_grad[slot] = tg;
        p.sum_grad_x[slot] = tgx;
      }
    });
    return;
  }
  bn_cl_sums<2>(L, {p.sum_grad, p.sum_grad_x}, [&](int64_t off, double* acc, int64_t base) {
    const double* m = center + base;
    double* ag = acc;
    double* agx = acc + C;
    for (int64_t c = 0; c < C; ++c) {
      const double gv = static_cast<double>(g[off + c]);
      ag[c] += gv;
      agx[c] += gv * (static_cast<double>(x[off + c]) - m[c]);
    }
  });
}

template <class T>
void bn_apply(const BatchNormApplyParams& p) {
  using A = bn_acc_t<T>;
  const ChannelLayout& L = p.layout;
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  T* out = static_cast<T*>(p.out);
  const int64_t slots = L.slots(), C = L.c, S = L.s;
  // The coefficients in the compute type, once (a channels-last row reads C of them).
  std::vector<A> ka(static_cast<size_t>(slots)), kb(static_cast<size_t>(b ? slots : 0)),
      k0(static_cast<size_t>(slots));
  for (int64_t s = 0; s < slots; ++s) {
    ka[s] = static_cast<A>(p.ka[s]);
    k0[s] = static_cast<A>(p.k0[s]);
    if (b) kb[s] = static_cast<A>(p.kb[s]);
  }
  if (!L.channels_last) {
    parallel_for(0, L.n * C, bn_grain(S), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t slot = L.per_sample ? r : r % C;
        const A sa = ka[slot], s0 = k0[slot];
        const T* ar = a + r * S;
        T* o = out + r * S;
        if (b) {
          const A sb = kb[slot];
          const T* br = b + r * S;
          for (int64_t i = 0; i < S; ++i)
            o[i] = static_cast<T>(static_cast<A>(ar[i]) * sa + static_cast<A>(br[i]) * sb + s0);
        } else {
          for (int64_t i = 0; i < S; ++i) o[i] = static_cast<T>(static_cast<A>(ar[i]) * sa + s0);
        }
      }
    });
    return;
  }
  parallel_for(0, L.n * S, bn_grain(C), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t base = L.per_sample ? (r / S) * C : 0;
      const A* sa = ka.data() + base;
      const A* s0 = k0.data() + base;
      const T* ar = a + r * C;
      T* o = out + r * C;
      if (b) {
        const A* sb = kb.data() + base;
        const T* br = b + r * C;
        for (int64_t c = 0; c < C; ++c)
          o[c] =
              static_cast<T>(static_cast<A>(ar[c]) * sa[c] + static_cast<A>(br[c]) * sb[c] + s0[c]);
      } else {
        for (int64_t c = 0; c < C; ++c)
          o[c] = static_cast<T>(static_cast<A>(ar[c]) * sa[c] + s0[c]);
      }
    }
  });
}

template <class Fn>
void bn_visit(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace

void cpu_batch_norm_stats(ScalarType dtype, const BatchNormStatsParams& p) {
  bn_visit(dtype, [&](auto tag) { bn_stats<typename decltype(tag)::type>(p); });
}

void cpu_batch_norm_reduce(ScalarType dtype, const BatchNormReduceParams& p) {
  bn_visit(dtype, [&](auto tag) { bn_reduce<typename decltype(tag)::type>(p); });
}

void cpu_batch_norm_apply(ScalarType dtype, const BatchNormApplyParams& p) {
  bn_visit(dtype, [&](auto tag) { bn_apply<typename decltype(tag)::type>(p); });
}

}  // namespace ember::kernels
