// Fused row normalisation kernels (see norm_kernels.h).
//
// Why fused: composed from reductions and elementwise ops, layer_norm's forward makes ~6 passes
// over the input with 4 full-size temporaries, and its backward ~15 more (measured: forward 15x,
// forward+backward 160x the cost of one copy of a 512x768 float input). Here forward reads each
// row twice while it sits in L1 (mean, then centred sum of squares: exact two-pass variance) and
// writes it once; backward reads grad and x twice per row and writes dx once, with dw/db summed
// in per-thread partial rows.
//
// Sums run in 8 independent lanes (float rows) so the compiler turns them into SIMD adds without
// reassociation flags; 16-bit inputs are widened to float element by element.
#include "kernels/cpu/norm_kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/core/half.h"
#include "kernels/common/visit.h"
#include "src/core/parallel.h"

namespace ember::kernels {
namespace {

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr int kLanes = 8;

// Σ f(i) for i in [0, n), in kLanes independent partial sums.
template <class A, class F>
inline A lane_sum(int64_t n, F f) {
  A part[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) part[k] += f(i + k);
  A total = 0;
  for (; i < n; ++i) total += f(i);
  for (int k = 0; k < kLanes; ++k) total += part[k];
  return total;
}

// Rows per task: enough work per thread to beat the wake-up cost (~32k elements).
int64_t row_grain(int64_t d) {
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(d, 1));
}

// The row count, the row length and which norm; the kernels' inner loops read these.
struct RowNormShape {
  int64_t rows = 0;
  int64_t d = 0;
  bool rms = false;
};

template <class T>
void forward(const RowNormShape& s, const T* x, const T* w, const T* b, double eps, T* y,
             acc_t<T>* mean, acc_t<T>* rstd) {
  using A = acc_t<T>;
  const int64_t d = s.d;
  parallel_for(0, s.rows, row_grain(d), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * d;
      T* yr = y + r * d;
      A mu = 0;
      if (!s.rms) mu = lane_sum<A>(d, [&](int64_t i) { return static_cast<A>(xr[i]); }) / d;
      const A ss = lane_sum<A>(d, [&](int64_t i) {
        const A c = static_cast<A>(xr[i]) - mu;
        return c * c;
      });
      const A rs = static_cast<A>(1) / std::sqrt(ss / d + static_cast<A>(eps));
      if (mean) mean[r] = mu;
      rstd[r] = rs;
      for (int64_t i = 0; i < d; ++i) {
        A v = (static_cast<A>(xr[i]) - mu) * rs;
        if (w) v *= static_cast<A>(w[i]);
        if (b) v += static_cast<A>(b[i]);
        yr[i] = static_cast<T>(v);
      }
    }
  });
}

// Per row, with xhat = (x - mean)·rstd and gw = grad·w:
//   dx = rstd·(gw - mean(gw) - xhat·mean(gw·xhat))      (LayerNorm)
//   dx = rstd·(gw - xhat·mean(gw·xhat))                 (RMSNorm)
//   dw = Σ_rows grad·xhat,  db = Σ_rows grad
// xhat and gw of a row go to scratch rows of the accumulator type first, so every loop below is
// a plain array loop the compiler vectorises.
template <class T>
void backward(const RowNormShape& s, const T* g, const T* x, const T* w, const acc_t<T>* mean,
              const acc_t<T>* rstd, T* dx, T* dw, T* db) {
  using A = acc_t<T>;
  const int64_t d = s.d, rows = s.rows;
  const int64_t grain = row_grain(d);
  const int64_t chunks =
      std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), (rows + grain - 1) / grain));
  std::vector<A> dw_part(dw ? static_cast<size_t>(chunks * d) : 0);
  std::vector<A> db_part(db ? static_cast<size_t>(chunks * d) : 0);
  const int64_t per = (rows + chunks - 1) / chunks;
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    std::vector<A> xhat_buf(static_cast<size_t>(d)), gw_buf(static_cast<size_t>(d));
    A* xh = xhat_buf.data();
    A* gw = gw_buf.data();
    for (int64_t c = c0; c < c1; ++c) {
      A* dwp = dw ? dw_part.data() + c * d : nullptr;
      A* dbp = db ? db_part.data() + c * d : nullptr;
      const int64_t r_end = std::min(rows, (c + 1) * per);
      for (int64_t r = c * per; r < r_end; ++r) {
        const T* gr = g + r * d;
        const T* xr = x + r * d;
        const A mu = mean ? mean[r] : 0, rs = rstd[r];
        for (int64_t i = 0; i < d; ++i) xh[i] = (static_cast<A>(xr[i]) - mu) * rs;
        if (w) {
          for (int64_t i = 0; i < d; ++i) gw[i] = static_cast<A>(gr[i]) * static_cast<A>(w[i]);
        } else {
          for (int64_t i = 0; i < d; ++i) gw[i] = static_cast<A>(gr[i]);
        }
        if (dx) {
          const A k1 = lane_sum<A>(d, [&](int64_t i) { return gw[i] * xh[i]; }) / d;
          const A k2 = s.rms ? 0 : lane_sum<A>(d, [&](int64_t i) { return gw[i]; }) / d;
          T* dxr = dx + r * d;
          for (int64_t i = 0; i < d; ++i) dxr[i] = static_cast<T>(rs * (gw[i] - k2 - xh[i] * k1));
        }
        if (dwp)
          for (int64_t i = 0; i < d; ++i) dwp[i] += static_cast<A>(gr[i]) * xh[i];
        if (dbp)
          for (int64_t i = 0; i < d; ++i) dbp[i] += static_cast<A>(gr[i]);
      }
    }
  });
  for (int64_t i = 0; i < d; ++i) {
    A sw = 0, sb = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      if (dw) sw += dw_part[c * d + i];
      if (db) sb += db_part[c * d + i];
    }
    if (dw) dw[i] = static_cast<T>(sw);
    if (db) db[i] = static_cast<T>(sb);
  }
}

template <class Fn>
void visit_norm_dtype(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace

void cpu_row_norm_forward(ScalarType dtype, const RowNormParams& p) {
  const RowNormShape s{p.rows, p.d, p.rms};
  visit_norm_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    forward<T>(s, static_cast<const T*>(p.x), static_cast<const T*>(p.w),
               static_cast<const T*>(p.b), p.eps, static_cast<T*>(p.y), static_cast<A*>(p.mean),
               static_cast<A*>(p.rstd));
  });
}

void cpu_row_norm_backward(ScalarType dtype, const RowNormBackwardParams& p) {
  const RowNormShape s{p.rows, p.d, p.rms};
  visit_norm_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    backward<T>(s, static_cast<const T*>(p.grad), static_cast<const T*>(p.x),
                static_cast<const T*>(p.w), static_cast<const A*>(p.mean),
                static_cast<const A*>(p.rstd), static_cast<T*>(p.dx), static_cast<T*>(p.dw),
                static_cast<T*>(p.db));
  });
}

}  // namespace ember::kernels
