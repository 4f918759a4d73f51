// Tile helpers shared by the fused attention kernels (attention_kernels.cpp: SDPA;
// flex_attention_kernels.cpp: FlexAttention): single-threaded GEMMs on tiles, widening 16-bit
// rows to the accumulation type, and the row passes of the online softmax and its backward.
#pragma once

#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/core/half.h"
#include "ember/core/scalar_type.h"
#include "kernels/cpu/gemm_cpu.h"
#include "kernels/cpu/vec_math.h"

namespace ember::attention_tiles {

/// C = alpha·op(A)·op(B) + beta·C, row-major, on the calling thread. Returns false on failure
/// (callers run inside OpenMP regions, where nothing may throw).
inline bool gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return true;
  return dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, std::max<int64_t>(lda, 1), b,
                    std::max<int64_t>(ldb, 1), beta, c, std::max<int64_t>(ldc, 1)) == dnnl_success;
}

inline bool gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                 int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m == 0 || n == 0) return true;
  cpu::eigen_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return true;
}

/// A tile: rows of A with leading dimension ld.
template <class A>
struct Tile {
  const A* data;
  int64_t ld;
};

/// `rows` rows of `cols` elements, `ld` apart, at x as the accumulation type A: x itself when T is
/// A, else widened into buf (then ld = cols).
template <class T, class A>
inline Tile<A> rows_as(const T* x, int64_t rows, int64_t cols, int64_t ld, std::vector<A>& buf) {
  if constexpr (std::is_same_v<T, A>) {
    return {x, ld};
  } else {
    buf.resize(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < cols; ++j)
        buf[static_cast<size_t>(r * cols + j)] = static_cast<A>(x[r * ld + j]);
    return {buf.data(), cols};
  }
}

template <class T, class A>
inline void store_rows(const A* x, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(x[i]);
}

template <class A>
inline A row_max(const A* s, int64_t n) {
  A mx = -std::numeric_limits<A>::infinity();
  int64_t j = 0;
#ifdef EMBER_VEC_F32_LANES
  if constexpr (std::is_same_v<A, float>) {
    using namespace kernels::vec;
    if (n >= kLanes) {
      F acc = load(s);
      for (j = kLanes; j + kLanes <= n; j += kLanes) acc = max(load(s + j), acc);
      alignas(64) float lanes[kLanes];
      store(lanes, acc);
      for (float x : lanes) mx = std::max(mx, x);
    }
  }
#endif
  for (; j < n; ++j) mx = std::max(mx, s[j]);
  return mx;
}

/// s[j] = exp(s[j] - shift) for j < n; returns their sum. shift is finite or +inf (then all 0).
template <class A>
inline A exp_shifted(A* s, int64_t n, A shift) {
  A sum = 0;
  int64_t j = 0;
#ifdef EMBER_VEC_F32_LANES
  if constexpr (std::is_same_v<A, float>) {
    using namespace kernels::vec;
    const F minus = set1(-shift);
    F acc = set1(0.0f);
    for (; j + kLanes <= n; j += kLanes) {
      const F e = exp_full(add(load(s + j), minus));
      store(s + j, e);
      acc = add(acc, e);
    }
    alignas(64) float lanes[kLanes];
    store(lanes, acc);
    for (float x : lanes) sum += x;
  }
#endif
  for (; j < n; ++j) {
    s[j] = std::exp(s[j] - shift);
    sum += s[j];
  }
  return sum;
}

/// Σ a[j]·b[j].
template <class A>
inline A dot_row(const A* a, const A* b, int64_t n) {
  A sum = 0;
  int64_t j = 0;
#ifdef EMBER_VEC_F32_LANES
  if constexpr (std::is_same_v<A, float>) {
    using namespace kernels::vec;
    if (n >= kLanes) {
      F acc = mul(load(a), load(b));
      for (j = kLanes; j + kLanes <= n; j += kLanes) acc = fmadd(load(a + j), load(b + j), acc);
      alignas(64) float lanes[kLanes];
      store(lanes, acc);
      for (float x : lanes) sum += x;
    }
  }
#endif
  for (; j < n; ++j) sum += a[j] * b[j];
  return sum;
}

/// ds[j] = p[j]·(ds[j] − d): the score gradient from the weights and their gradient dP (in ds).
template <class A>
inline void ds_row(const A* __restrict p, A* __restrict ds, int64_t n, A d) {
  int64_t j = 0;
#ifdef EMBER_VEC_F32_LANES
  if constexpr (std::is_same_v<A, float>) {
    using namespace kernels::vec;
    const F vd = set1(d);
    for (; j + kLanes <= n; j += kLanes)
      store(ds + j, mul(load(p + j), add(load(ds + j), neg(vd))));
  }
#endif
  for (; j < n; ++j) ds[j] = p[j] * (ds[j] - d);
}

/// The online softmax over one tile: folds m rows of n scores (scaled, modified, masked) into
/// each row's running maximum and sum, rescales the row's accumulator (Ev wide) when the maximum
/// grows, and leaves exp(score − maximum) in the tile for P·V.
template <class A>
inline void online_softmax_rows(A* scores, int64_t m, int64_t n, A* row_mx, A* row_sum, A* acc,
                                int64_t Ev) {
  const A inf = std::numeric_limits<A>::infinity();
  for (int64_t r = 0; r < m; ++r) {
    A* s = scores + r * n;
    const A mx = std::max(row_mx[r], row_max(s, n));
    if (mx == -inf) {
      // Nothing of this row takes part yet, or (row_max skips NaN) its scores are NaN: a NaN row
      // must come out NaN, as on the math path, not as a row with no key.
      const bool nan = std::any_of(s, s + n, [](A x) { return x != x; });
      std::fill(s, s + n, nan ? std::numeric_limits<A>::quiet_NaN() : A(0));
      if (nan) row_mx[r] = row_sum[r] = std::numeric_limits<A>::quiet_NaN();
      continue;
    }
    if (row_mx[r] == -inf) {  // the row's first keys: its accumulator is still zero
      row_sum[r] = exp_shifted(s, n, mx);
    } else {
      const A alpha = std::exp(row_mx[r] - mx);
      row_sum[r] = row_sum[r] * alpha + exp_shifted(s, n, mx);
      if (alpha != A(1))
        for (int64_t j = 0; j < Ev; ++j) acc[r * Ev + j] *= alpha;
    }
    row_mx[r] = mx;
  }
}

/// Writes m output rows (acc / sum, as T through obuf, to out_row(r)) and their logsumexp: +inf
/// for a row no key took part in (output 0; backward's P = 0), NaN for a NaN row.
template <class T, class A, class OutRow>
inline void finish_rows(int64_t m, int64_t Ev, const A* acc, const A* row_mx, const A* row_sum,
                        A* obuf, A* lse, OutRow out_row) {
  const A inf = std::numeric_limits<A>::infinity();
  for (int64_t r = 0; r < m; ++r) {
    const A l = row_sum[r];
    const A inv = l > A(0) ? A(1) / l : A(0);
    for (int64_t j = 0; j < Ev; ++j) obuf[j] = acc[r * Ev + j] * inv;
    store_rows(obuf, Ev, out_row(r));
    lse[r] = l > A(0) ? row_mx[r] + std::log(l) : l == A(0) ? inf : l;
  }
}

/// Calls f(T{}, A{}) for the fused kernels' dtypes: the element type T of `dtype` and the type A
/// it accumulates in (double for double, else float).
template <class F>
void visit_attention_dtype(ScalarType dtype, F&& f) {
  switch (dtype) {
    case kDouble:
      return f(double{}, double{});
    case kBFloat16:
      return f(BFloat16{}, float{});
    case kHalf:
      return f(Half{}, float{});
    default:
      return f(float{}, float{});
  }
}

}  // namespace ember::attention_tiles
