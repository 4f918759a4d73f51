// F::interpolate on the CPU: one separable loop for every mode (the taps of each dim come from
// kernels/common/resample_taps.h), in two layouts.
//
// Planar (NCHW): a plane per task; for each output row the taps of the outer dims are first
// summed into one input-width row (a contiguous, vectorised axpy per tap), then the inner dim's
// taps read that row. For a 2x bilinear of a 64x64 plane that is 2·64 + 2·128 multiply-adds per
// output row instead of 4·128, and the axpy runs at full vector width.
// Channels-last (NHWC): an output row per task and the channels innermost, so every tap is a
// contiguous axpy over C.
// Both directions accumulate in A (float, or double for float64) and round once.
//
// One core, [8, 32, 64, 64] float32 -> 128x128 (this machine, under load from other builds, so
// ratios rather than times): bilinear forward 6-17 ms against PyTorch 1.13's 14-25 ms,
// channels-last 3-9 ms against 5-11 ms, nearest 2-6 ms against 8-16 ms, bilinear forward+backward
// 21-50 ms against 46-107 ms.
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ember/core/half.h"
#include "kernels/common/resample_taps.h"
#include "kernels/common/visit.h"
#include "kernels/cpu/resample_kernels.h"
#include "src/core/parallel.h"

namespace ember::kernels {
namespace {

template <class T>
using upsample_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The params as three spatial dims (missing leading dims have size 1, one tap, stride 0).
template <class A>
struct UpsampleGeometry {
  using Taps = resample::Taps<A>;
  std::array<Taps, 3> taps;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t is[5] = {}, os[5] = {};  // strides: N, C, d0, d1, d2
  bool channels_last = false;

  explicit UpsampleGeometry(const UpsampleParams& p) {
    const int pad = 3 - p.dims;
    is[0] = p.in_stride[0];
    is[1] = p.in_stride[1];
    os[0] = p.out_stride[0];
    os[1] = p.out_stride[1];
    for (int d = 0; d < 3; ++d) {
      if (d < pad) {
        taps[d].add(0, A(1));
        taps[d].close();
        continue;
      }
      in[d] = p.in_size[d - pad];
      out[d] = p.out_size[d - pad];
      is[2 + d] = p.in_stride[2 + d - pad];
      os[2 + d] = p.out_stride[2 + d - pad];
      taps[d] = resample::make_taps<A>(p, d - pad);
    }
    // Channels innermost in both tensors: the channels-last loops pay (C > 1).
    channels_last = p.channels > 1 && is[1] == 1 && os[1] == 1;
    // The inner dim's taps padded to a fixed count K per output (weight 0), so the per-output
    // loop has a compile-time trip count for K = 1, 2, 4: walking the ragged table instead, the
    // bilinear 2x above took 75 ms (loop overhead), against 25 ms for PyTorch at the time.
    const Taps& t2 = taps[2];
    k2 = static_cast<int>(t2.max_taps());
    idx2.assign(static_cast<size_t>(out[2] * k2), 0);
    w2.assign(static_cast<size_t>(out[2] * k2), A(0));
    cnt2.assign(static_cast<size_t>(out[2]), 0);
    for (int64_t o = 0; o < out[2]; ++o) {
      cnt2[o] = static_cast<int>(t2.start[o + 1] - t2.start[o]);
      // Ragged rows (area, antialias) loop over their own counts: a padded tap's 0·x would turn an
      // infinite x into NaN where the true sum has no such term.
      if (cnt2[o] != k2) uniform2 = false;
    }
    for (int64_t o = 0; o < out[2]; ++o)
      for (int64_t k = t2.start[o]; k < t2.start[o + 1]; ++k) {
        idx2[o * k2 + (k - t2.start[o])] = t2.idx[k];
        w2[o * k2 + (k - t2.start[o])] = t2.w[k];
      }
  }
  int k2 = 1;
  std::vector<int64_t> idx2;  // [out[2], k2]
  std::vector<A> w2;          // [out[2], k2]
  std::vector<int> cnt2;      // the taps each inner output really has
  bool uniform2 = true;       // every inner output has k2 taps
  int64_t in_positions() const { return in[0] * in[1] * in[2]; }
  int64_t out_positions() const { return out[0] * out[1] * out[2]; }
};

// y[o·ys] = Σ_k w[o·K + k]·row[idx[o·K + k]] for o < n: the inner dim's taps of one output row.
template <int K, class A, class T>
void upsample_gather_row(const A* __restrict row, const int64_t* __restrict idx,
                         const A* __restrict w, const int* cnt, int64_t n, int kr, T* __restrict y,
                         int64_t ys) {
  const int stride = K > 0 ? K : kr;
  for (int64_t o = 0; o < n; ++o) {
    A acc = 0;
    const int k_count = K > 0 ? K : cnt[o];
    for (int k = 0; k < k_count; ++k) acc += w[o * stride + k] * row[idx[o * stride + k]];
    y[o * ys] = static_cast<T>(acc);
  }
}

template <class A, class T>
void upsample_gather(const A* row, const UpsampleGeometry<A>& g, T* y, int64_t ys) {
  const int64_t* i = g.idx2.data();
  const A* w = g.w2.data();
  const int* c = g.cnt2.data();
  const int64_t n = g.out[2];
  const int k = g.uniform2 ? g.k2 : 0;
  if (k == 1) return upsample_gather_row<1>(row, i, w, c, n, g.k2, y, ys);
  if (k == 2) return upsample_gather_row<2>(row, i, w, c, n, g.k2, y, ys);
  if (k == 4) return upsample_gather_row<4>(row, i, w, c, n, g.k2, y, ys);
  upsample_gather_row<0>(row, i, w, c, n, g.k2, y, ys);
}

// row[idx[o·K + k]] += w[o·K + k]·y[o·ys]: the adjoint of upsample_gather_row.
template <int K, class A, class T>
void upsample_scatter_row(A* __restrict row, const int64_t* __restrict idx, const A* __restrict w,
                          const int* cnt, int64_t n, int kr, const T* __restrict y, int64_t ys) {
  const int stride = K > 0 ? K : kr;
  for (int64_t o = 0; o < n; ++o) {
    const A v = static_cast<A>(y[o * ys]);
    const int k_count = K > 0 ? K : cnt[o];
    for (int k = 0; k < k_count; ++k) row[idx[o * stride + k]] += w[o * stride + k] * v;
  }
}

template <class A, class T>
void upsample_scatter(A* row, const UpsampleGeometry<A>& g, const T* y, int64_t ys) {
  const int64_t* i = g.idx2.data();
  const A* w = g.w2.data();
  const int* c = g.cnt2.data();
  const int64_t n = g.out[2];
  const int k = g.uniform2 ? g.k2 : 0;
  if (k == 1) return upsample_scatter_row<1>(row, i, w, c, n, g.k2, y, ys);
  if (k == 2) return upsample_scatter_row<2>(row, i, w, c, n, g.k2, y, ys);
  if (k == 4) return upsample_scatter_row<4>(row, i, w, c, n, g.k2, y, ys);
  upsample_scatter_row<0>(row, i, w, c, n, g.k2, y, ys);
}

// row[i] += w·x[i·xs] for i < n.
template <class A, class T>
void upsample_axpy(A* __restrict row, A w, const T* __restrict x, int64_t n, int64_t xs) {
  if (xs == 1) {
    for (int64_t i = 0; i < n; ++i) row[i] += w * static_cast<A>(x[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) row[i] += w * static_cast<A>(x[i * xs]);
  }
}

template <class T>
void upsample_planar(const UpsampleParams& p, const UpsampleGeometry<upsample_acc_t<T>>& g) {
  using A = upsample_acc_t<T>;
  const T* src = static_cast<const T*>(p.src);
  T* dst = static_cast<T*>(p.dst);
  const auto &t0 = g.taps[0], &t1 = g.taps[1];
  const int64_t planes = p.batch * p.channels;
  const int64_t grain =
      std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, g.out_positions()));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    std::vector<A> row(static_cast<size_t>(g.in[2]));
    for (int64_t pl = b; pl < e; ++pl) {
      const int64_t n = pl / p.channels, c = pl % p.channels;
      const T* x = src + n * g.is[0] + c * g.is[1];
      T* y = dst + n * g.os[0] + c * g.os[1];
      for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
          std::fill(row.begin(), row.end(), A(0));
          for (int64_t k0 = t0.start[o0]; k0 < t0.start[o0 + 1]; ++k0)
            for (int64_t k1 = t1.start[o1]; k1 < t1.start[o1 + 1]; ++k1) {
              const T* xr = x + t0.idx[k0] * g.is[2] + t1.idx[k1] * g.is[3];
              upsample_axpy(row.data(), t0.w[k0] * t1.w[k1], xr, g.in[2], g.is[4]);
            }
          upsample_gather(row.data(), g, y + o0 * g.os[2] + o1 * g.os[3], g.os[4]);
        }
    }
  });
}

// Channels-last forward: a task per output row (n, o0, o1); the outer dims' tap pairs are listed
// once per row, then each output position sums (pairs x inner taps) axpys over the channels.
// float32/float64 accumulate in the output itself, the 16-bit types in a float row.
template <class T>
void upsample_channels_last(const UpsampleParams& p, const UpsampleGeometry<upsample_acc_t<T>>& g) {
  using A = upsample_acc_t<T>;
  constexpr bool kInPlace = std::is_same_v<T, A>;
  const T* src = static_cast<const T*>(p.src);
  T* dst = static_cast<T*>(p.dst);
  const auto &t0 = g.taps[0], &t1 = g.taps[1];
  const int64_t C = p.channels, rows = p.batch * g.out[0] * g.out[1];
  const int K = g.k2;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / (C * g.out[2]));
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    std::vector<A> acc(kInPlace ? 0 : static_cast<size_t>(C));
    std::vector<int64_t> pair_off;
    std::vector<A> pair_w;
    for (int64_t r = b; r < e; ++r) {
      const int64_t o1 = r % g.out[1], o0 = (r / g.out[1]) % g.out[0],
                    n = r / (g.out[1] * g.out[0]);
      pair_off.clear();
      pair_w.clear();
      for (int64_t k0 = t0.start[o0]; k0 < t0.start[o0 + 1]; ++k0)
        for (int64_t k1 = t1.start[o1]; k1 < t1.start[o1 + 1]; ++k1) {
          pair_off.push_back(n * g.is[0] + t0.idx[k0] * g.is[2] + t1.idx[k1] * g.is[3]);
          pair_w.push_back(t0.w[k0] * t1.w[k1]);
        }
      T* yrow = dst + n * g.os[0] + o0 * g.os[2] + o1 * g.os[3];
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
        T* yp = yrow + o2 * g.os[4];
        A* a;
        if constexpr (kInPlace)
          a = yp;
        else
          a = acc.data();
        std::fill(a, a + C, A(0));
        for (size_t j = 0; j < pair_off.size(); ++j)
          for (int k = 0; k < g.cnt2[o2]; ++k) {
            const A w = pair_w[j] * g.w2[o2 * K + k];
            const T* __restrict xr = src + pair_off[j] + g.idx2[o2 * K + k] * g.is[4];
            A* __restrict ac = a;
            for (int64_t c = 0; c < C; ++c) ac[c] += w * static_cast<A>(xr[c]);
          }
        if constexpr (!kInPlace)
          for (int64_t c = 0; c < C; ++c) yp[c] = static_cast<T>(a[c]);
      }
    }
  });
}

// Backward, planar: the inner dim's taps scatter an output row into an input-width row, which the
// outer taps then add (axpy) into the plane's accumulator.
template <class T>
void upsample_backward_planar(const UpsampleParams& p,
                              const UpsampleGeometry<upsample_acc_t<T>>& g) {
  using A = upsample_acc_t<T>;
  const T* gy = static_cast<const T*>(p.src);
  T* gx = static_cast<T*>(p.dst);
  const auto &t0 = g.taps[0], &t1 = g.taps[1];
  const int64_t planes = p.batch * p.channels;
  const int64_t work = std::max<int64_t>(1, g.out_positions() + g.in_positions());
  parallel_for(0, planes, std::max<int64_t>(1, kElementwiseGrain / work),
               [&](int64_t b, int64_t e) {
                 std::vector<A> acc(static_cast<size_t>(g.in_positions()));
                 std::vector<A> row(static_cast<size_t>(g.in[2]));
                 for (int64_t pl = b; pl < e; ++pl) {
                   const int64_t n = pl / p.channels, c = pl % p.channels;
                   const T* y = gy + n * g.os[0] + c * g.os[1];
                   std::fill(acc.begin(), acc.end(), A(0));
                   for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
                     for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                       std::fill(row.begin(), row.end(), A(0));
                       const T* yr = y + o0 * g.os[2] + o1 * g.os[3];
                       upsample_scatter(row.data(), g, yr, g.os[4]);
                       for (int64_t k0 = t0.start[o0]; k0 < t0.start[o0 + 1]; ++k0)
                         for (int64_t k1 = t1.start[o1]; k1 < t1.start[o1 + 1]; ++k1) {
                           A* ar = acc.data() + (t0.idx[k0] * g.in[1] + t1.idx[k1]) * g.in[2];
                           upsample_axpy(ar, t0.w[k0] * t1.w[k1], row.data(), g.in[2], 1);
                         }
                     }
                   T* x = gx + n * g.is[0] + c * g.is[1];
                   for (int64_t i0 = 0; i0 < g.in[0]; ++i0)
                     for (int64_t i1 = 0; i1 < g.in[1]; ++i1) {
                       const A* ar = acc.data() + (i0 * g.in[1] + i1) * g.in[2];
                       T* xr = x + i0 * g.is[2] + i1 * g.is[3];
                       for (int64_t i2 = 0; i2 < g.in[2]; ++i2)
                         xr[i2 * g.is[4]] = static_cast<T>(ar[i2]);
                     }
                 }
               });
}

// Backward, channels-last: a task per (image, block of channels) owns its slice of grad_input,
// so the scatter needs no atomics.
template <class T>
void upsample_backward_channels_last(const UpsampleParams& p,
                                     const UpsampleGeometry<upsample_acc_t<T>>& g) {
  using A = upsample_acc_t<T>;
  const T* gy = static_cast<const T*>(p.src);
  T* gx = static_cast<T*>(p.dst);
  const auto &t0 = g.taps[0], &t1 = g.taps[1], &t2 = g.taps[2];
  const int64_t C = p.channels, kBlock = 64;
  const int64_t blocks = (C + kBlock - 1) / kBlock;
  const int64_t P = g.out_positions(), Q = g.in_positions();
  parallel_for(0, p.batch * blocks, 1, [&](int64_t b, int64_t e) {
    std::vector<A> acc;
    for (int64_t task = b; task < e; ++task) {
      const int64_t n = task / blocks, c0 = (task % blocks) * kBlock;
      const int64_t cw = std::min(kBlock, C - c0);
      acc.assign(static_cast<size_t>(Q * cw), A(0));
      for (int64_t pos = 0; pos < P; ++pos) {
        const int64_t o2 = pos % g.out[2], o1 = (pos / g.out[2]) % g.out[1],
                      o0 = pos / (g.out[2] * g.out[1]);
        const T* yr = gy + n * g.os[0] + o0 * g.os[2] + o1 * g.os[3] + o2 * g.os[4] + c0;
        for (int64_t k0 = t0.start[o0]; k0 < t0.start[o0 + 1]; ++k0)
          for (int64_t k1 = t1.start[o1]; k1 < t1.start[o1 + 1]; ++k1)
            for (int64_t k2 = t2.start[o2]; k2 < t2.start[o2 + 1]; ++k2) {
              const A w = t0.w[k0] * t1.w[k1] * t2.w[k2];
              A* ar =
                  acc.data() + ((t0.idx[k0] * g.in[1] + t1.idx[k1]) * g.in[2] + t2.idx[k2]) * cw;
              for (int64_t c = 0; c < cw; ++c) ar[c] += w * static_cast<A>(yr[c]);
            }
      }
      for (int64_t q = 0; q < Q; ++q) {
        const int64_t i2 = q % g.in[2], i1 = (q / g.in[2]) % g.in[1], i0 = q / (g.in[2] * g.in[1]);
        T* xr = gx + n * g.is[0] + i0 * g.is[2] + i1 * g.is[3] + i2 * g.is[4] + c0;
        for (int64_t c = 0; c < cw; ++c) xr[c] = static_cast<T>(acc[q * cw + c]);
      }
    }
  });
}

template <class Fn>
void upsample_visit(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace

void cpu_upsample(ScalarType dtype, const UpsampleParams& p) {
  upsample_visit(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const UpsampleGeometry<upsample_acc_t<T>> g(p);
    if (p.batch * p.channels * g.out_positions() == 0) return;
    if (g.channels_last)
      upsample_channels_last<T>(p, g);
    else
      upsample_planar<T>(p, g);
  });
}

void cpu_upsample_backward(ScalarType dtype, const UpsampleParams& p) {
  upsample_visit(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const UpsampleGeometry<upsample_acc_t<T>> g(p);
    if (p.batch * p.channels * g.in_positions() == 0) return;
    if (g.channels_last)
      upsample_backward_channels_last<T>(p, g);
    else
      upsample_backward_planar<T>(p, g);
  });
}

}  // namespace ember::kernels
