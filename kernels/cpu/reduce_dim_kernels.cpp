// CPU kernels that work along one dim of a contiguous tensor seen as [outer, size, inner]:
// softmax, log_softmax, cumsum, cumprod, sort, topk, median.
//
// When inner == 1 the dim is the last one and each row is dense: softmax runs three vectorised
// passes over it (max, exp-and-sum, scale). Otherwise a tile of up to 64 adjacent columns is
// processed together, vectorised across the columns.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "kernels/cpu/reduce_exp.h"
#include "kernels/cpu/reduce_loops.h"
#include "kernels/cpu/vec_math.h"
#include "src/dispatch/dispatch.h"

namespace ember {

namespace {
using namespace kernels;

constexpr int64_t kColumnTile = 64;

/// Grain in rows/lines for work of `per_line` elements each.
int64_t line_grain(int64_t per_line) {
  return std::max<int64_t>(1, kReduceGrain / std::max<int64_t>(per_line, 1));
}

// ---- softmax / log_softmax ----
// Last-dim rows, three vectorised passes over a row that stays in cache: the max (lanes, NaN
// wins), exp(x - max) into a float row with its sum (lanes), then scale (softmax) or shift
// (log_softmax). A row holding NaN (or +inf) comes out all NaN, as in PyTorch.
#ifdef EMBER_VEC_F32_LANES
/// One dense float row through vec_math.h's registers: the generic body's max loop compiled to
/// scalar compares (its NaN test), which made softmax over rows of 128 take ~1.2 ns per element.
/// The max here ignores NaN; a NaN (or +inf) still reaches every output through exp and the sum.
template <bool kLog>
void softmax_row_f32(const float* __restrict__ x, float* __restrict__ y, int64_t D) {
  using namespace vec;
  const int64_t body = D - D % kLanes;
  alignas(64) float lanes[kLanes];
  float mx = -std::numeric_limits<float>::infinity();
  if (body > 0) {
    F m = load(x);
    for (int64_t k = kLanes; k < body; k += kLanes) m = max(load(x + k), m);
    store(lanes, m);
    for (float v : lanes) mx = std::max(mx, v);
  }
  for (int64_t k = body; k < D; ++k) mx = std::max(mx, x[k]);
  const F minus_mx = set1(-mx);
  F acc = set1(0.0f);
  for (int64_t k = 0; k < body; k += kLanes) {
    const F e = exp_full(add(load(x + k), minus_mx));
    if constexpr (!kLog) store(y + k, e);
    acc = add(acc, e);
  }
  store(lanes, acc);
  float sum = 0;
  for (float v : lanes) sum += v;
  for (int64_t k = body; k < D; ++k) {
    const float e = softmax_exp(x[k] - mx);
    if constexpr (!kLog) y[k] = e;
    sum += e;
  }
  if constexpr (kLog) {
    // (x - max) - log(sum), in this order (see softmax_rows).
    const F shift = set1(std::log(sum));
    for (int64_t k = 0; k < body; k += kLanes)
      store(y + k, add(add(load(x + k), minus_mx), neg(shift)));
    const float log_sum = std::log(sum);
    for (int64_t k = body; k < D; ++k) y[k] = (x[k] - mx) - log_sum;
  } else {
    const F inv = set1(1.0f / sum);
    for (int64_t k = 0; k < body; k += kLanes) store(y + k, mul(load(y + k), inv));
    for (int64_t k = body; k < D; ++k) y[k] *= 1.0f / sum;
  }
}
#endif

template <class T, bool kLog>
void softmax_rows(const DimLoop& L) {
  using M = opmath_t<T>;
  constexpr bool kSame = std::is_same_v<T, M>;
  const int64_t D = L.size;
  const T* in = reinterpret_cast<const T*>(L.in);
  T* out = reinterpret_cast<T*>(L.out[0]);
  parallel_for(0, L.outer, line_grain(D), [&](int64_t b, int64_t e) {
    std::vector<M> scratch(kSame && !kLog ? 0 : static_cast<size_t>(D));
    for (int64_t r = b; r < e; ++r) {
      const T* __restrict__ x = in + r * D;
      T* __restrict__ y = out + r * D;
#ifdef EMBER_VEC_F32_LANES
      if constexpr (std::is_same_v<T, float>) {
        softmax_row_f32<kLog>(x, y, D);
        continue;
      }
#endif
      const M mx = static_cast<M>(lanes_block(MinMaxReduce<T, true>{}, x, D));
      M* __restrict__ ex = kSame && !kLog ? reinterpret_cast<M*>(y) : scratch.data();
      for (int64_t k = 0; k < D; ++k) ex[k] = softmax_exp(static_cast<M>(x[k]) - mx);
      const M sum = reduce_contig(SumReduce<M, M>{}, ex, D, 0);
      if constexpr (kLog) {
        // (x - max) - log(sum), in this order: folding max into the log first would round it
        // at the magnitude of max (x = -999 loses 5 digits in float).
        const M log_sum = std::log(sum);
        for (int64_t k = 0; k < D; ++k)
          y[k] = static_cast<T>((static_cast<M>(x[k]) - mx) - log_sum);
      } else {
        const M inv = M(1) / sum;
        for (int64_t k = 0; k < D; ++k) y[k] = static_cast<T>(ex[k] * inv);
      }
    }
  });
}

template <class T, bool kLog>
void softmax_columns(const DimLoop& L) {
  using M = opmath_t<T>;
  const int64_t D = L.size, inner = L.inner;
  const int64_t tiles = (inner + kColumnTile - 1) / kColumnTile;
  const T* in = reinterpret_cast<const T*>(L.in);
  T* out = reinterpret_cast<T*>(L.out[0]);
  parallel_for(
      0, L.outer * tiles, line_grain(D * std::min(inner, kColumnTile)), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t o = t / tiles, j0 = (t % tiles) * kColumnTile;
          const int64_t w = std::min(kColumnTile, inner - j0);
          const T* x = in + o * D * inner + j0;
          T* y = out + o * D * inner + j0;
          M mx[kColumnTile], sum[kColumnTile];
          for (int64_t j = 0; j < w; ++j) {
            mx[j] = -std::numeric_limits<M>::infinity();
            sum[j] = 0;
          }
          for (int64_t d = 0; d < D; ++d)
            for (int64_t j = 0; j < w; ++j)
              mx[j] = max_propagate_nan(mx[j], static_cast<M>(x[d * inner + j]));
          for (int64_t d = 0; d < D; ++d)
            for (int64_t j = 0; j < w; ++j)
              sum[j] += softmax_exp(static_cast<M>(x[d * inner + j]) - mx[j]);
          for (int64_t j = 0; j < w; ++j) sum[j] = kLog ? std::log(sum[j]) : M(1) / sum[j];
          for (int64_t d = 0; d < D; ++d)
            for (int64_t j = 0; j < w; ++j) {
              const M v = static_cast<M>(x[d * inner + j]) - mx[j];
              y[d * inner + j] = static_cast<T>(kLog ? v - sum[j] : softmax_exp(v) * sum[j]);
            }
        }
      });
}

template <bool kLog>
void softmax_kernel(const DimLoop& L) {
  if (L.outer * L.size * L.inner == 0) return;
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) {
      if (L.inner == 1)
        softmax_rows<T, kLog>(L);
      else
        softmax_columns<T, kLog>(L);
    }
  });
}

// ---- softmax / log_softmax backward, dense rows ----
// grad_input = y·(g - Σ g·y) (softmax) or g - exp(y)·Σ g (log_softmax; y is a log-probability,
// <= 0, which is exp_nonpositive's domain). Two passes over a row that stays in cache, where the
// composition makes four full-size ops (and their temporaries) out of it.
template <class T, bool kLog>
void softmax_backward_rows(const DimLoop& L) {
  using M = opmath_t<T>;
  constexpr int64_t kLanes = 16;  // independent partial sums, so the sum vectorises
  const int64_t D = L.size;
  const T* y_all = reinterpret_cast<const T*>(L.in);
  const T* g_all = reinterpret_cast<const T*>(L.in2);
  T* out_all = reinterpret_cast<T*>(L.out[0]);
  parallel_for(0, L.outer, line_grain(D), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* __restrict__ y = y_all + r * D;
      const T* __restrict__ g = g_all + r * D;
      T* __restrict__ out = out_all + r * D;
      M part[kLanes] = {};
      const int64_t body = D - D % kLanes;
      for (int64_t k = 0; k < body; k += kLanes)
        for (int64_t j = 0; j < kLanes; ++j) {
          const M gk = static_cast<M>(g[k + j]);
          part[j] += kLog ? gk : gk * static_cast<M>(y[k + j]);
        }
      M s = 0;
      for (int64_t j = 0; j < kLanes; ++j) s += part[j];
      for (int64_t k = body; k < D; ++k)
        s += kLog ? static_cast<M>(g[k]) : static_cast<M>(g[k]) * static_cast<M>(y[k]);
      for (int64_t k = 0; k < D; ++k) {
        const M yk = static_cast<M>(y[k]), gk = static_cast<M>(g[k]);
        out[k] = static_cast<T>(kLog ? gk - softmax_exp(yk) * s : yk * (gk - s));
      }
    }
  });
}

template <bool kLog>
void softmax_backward_kernel(const DimLoop& L) {
  if (L.outer * L.size == 0) return;
  // The op sends dense rows only (inner == 1); other layouts take the composition.
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) softmax_backward_rows<T, kLog>(L);
  });
}

// ---- cumsum / cumprod: integers and bool scan in int64, float in double (PyTorch's CPU
// acc_type), 16-bit floats in float ----
template <class T>
using scan_acc_t =
    std::conditional_t<is_float_type_v<T>,
                       std::conditional_t<std::is_same_v<opmath_t<T>, T>, double, float>, int64_t>;

template <class T, bool kProd>
void scan_typed(const DimLoop& L) {
  using A = scan_acc_t<T>;
  using Out = std::conditional_t<is_float_type_v<T>, T, int64_t>;
  const int64_t D = L.size, inner = L.inner;
  const T* in = reinterpret_cast<const T*>(L.in);
  Out* out = reinterpret_cast<Out*>(L.out[0]);
  const int64_t tiles = (inner + kColumnTile - 1) / kColumnTile;
  parallel_for(0, L.outer * tiles, line_grain(D * std::min(inner, kColumnTile)),
               [&](int64_t b, int64_t e) {
                 for (int64_t t = b; t < e; ++t) {
                   const int64_t o = t / tiles, j0 = (t % tiles) * kColumnTile;
                   const int64_t w = std::min(kColumnTile, inner - j0);
                   const T* x = in + o * D * inner + j0;
                   Out* y = out + o * D * inner + j0;
                   A acc[kColumnTile];
                   for (int64_t j = 0; j < w; ++j) acc[j] = A(kProd ? 1 : 0);
                   for (int64_t d = 0; d < D; ++d)
                     for (int64_t j = 0; j < w; ++j) {
                       const A v = static_cast<A>(static_cast<opmath_t<T>>(x[d * inner + j]));
                       acc[j] = kProd ? wrapping_mul(acc[j], v) : wrapping_add(acc[j], v);
                       y[d * inner + j] = static_cast<Out>(acc[j]);
                     }
                 }
               });
}

template <bool kProd>
void scan_kernel(const DimLoop& L) {
  if (L.outer * L.size * L.inner == 0) return;
  visit_dtype(L.in_dtype, [&](auto tag) { scan_typed<typename decltype(tag)::type, kProd>(L); });
}

// ---- sort / topk / median: per line, (value, index) pairs ordered with NaN above everything ----
template <class M>
struct Ascending {  // NaN last
  bool operator()(const std::pair<M, int64_t>& a, const std::pair<M, int64_t>& b) const {
    return a.first < b.first || (red_isnan(b.first) && !red_isnan(a.first));
  }
};
template <class M>
struct Descending {  // NaN first
  bool operator()(const std::pair<M, int64_t>& a, const std::pair<M, int64_t>& b) const {
    return a.first > b.first || (red_isnan(a.first) && !red_isnan(b.first));
  }
};
/// An order that is total: ties between equal values go to the lower index.
template <class Cmp>
struct ByIndexOnTies {
  Cmp cmp;
  template <class P>
  bool operator()(const P& a, const P& b) const {
    if (cmp(a, b)) return true;
    if (cmp(b, a)) return false;
    return a.second < b.second;
  }
};

/// Runs f(buf, line_offset) for every line, buf holding that line's (value, index) pairs.
template <class T, class F>
void for_each_line(const DimLoop& L, const F& f) {
  using M = opmath_t<T>;
  const int64_t D = L.size, inner = L.inner;
  const T* in = reinterpret_cast<const T*>(L.in);
  parallel_for(0, L.outer * inner, line_grain(D * 8), [&](int64_t b, int64_t e) {
    std::vector<std::pair<M, int64_t>> buf(static_cast<size_t>(D));
    for (int64_t line = b; line < e; ++line) {
      const int64_t o = line / inner, i = line % inner;
      const T* x = in + o * D * inner + i;
      for (int64_t d = 0; d < D; ++d) buf[d] = {static_cast<M>(x[d * inner]), d};
      f(buf, o, i);
    }
  });
}

template <class T>
void sort_typed(const DimLoop& L) {
  using M = opmath_t<T>;
  const int64_t D = L.size, inner = L.inner;
  T* values = reinterpret_cast<T*>(L.out[0]);
  int64_t* indices = reinterpret_cast<int64_t*>(L.out[1]);
  for_each_line<T>(L, [&](std::vector<std::pair<M, int64_t>>& buf, int64_t o, int64_t i) {
    if (L.descending)
      std::stable_sort(buf.begin(), buf.end(), Descending<M>{});
    else
      std::stable_sort(buf.begin(), buf.end(), Ascending<M>{});
    const int64_t base = o * D * inner + i;
    for (int64_t d = 0; d < D; ++d) {
      values[base + d * inner] = static_cast<T>(buf[d].first);
      indices[base + d * inner] = buf[d].second;
    }
  });
}

void sort_kernel(const DimLoop& L) {
  if (L.outer * L.size * L.inner == 0) return;
  visit_dtype(L.in_dtype, [&](auto tag) { sort_typed<typename decltype(tag)::type>(L); });
}

// PyTorch's CPU selection, so that ties pick the same entries (pruning masks depend on it): a
// partial sort when k is small against the line (k * 64 <= n), else nth_element on the k-th and
// a sort of the k - 1 before it; both with the plain value order, no tie rule of their own.
template <class Cmp, class Buf>
void select_top(Buf& buf, int64_t k, Cmp cmp) {
  const auto n = static_cast<int64_t>(buf.size());
  if (k * 64 <= n) {
    std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), cmp);
  } else {
    std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), cmp);
    std::sort(buf.begin(), buf.begin() + (k - 1), cmp);
  }
}

template <class T>
void topk_typed(const DimLoop& L) {
  using M = opmath_t<T>;
  const int64_t inner = L.inner, k = L.k;
  T* values = reinterpret_cast<T*>(L.out[0]);
  int64_t* indices = reinterpret_cast<int64_t*>(L.out[1]);
  for_each_line<T>(L, [&](std::vector<std::pair<M, int64_t>>& buf, int64_t o, int64_t i) {
    if (L.descending)
      select_top(buf, k, Descending<M>{});
    else
      select_top(buf, k, Ascending<M>{});
    const int64_t base = o * k * inner + i;
    for (int64_t d = 0; d < k; ++d) {
      values[base + d * inner] = static_cast<T>(buf[d].first);
      indices[base + d * inner] = buf[d].second;
    }
  });
}

void topk_kernel(const DimLoop& L) {
  if (L.outer * L.inner * L.k == 0) return;
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) topk_typed<T>(L);
  });
}

// The lower median, PyTorch's way: a line holding NaN gives its first NaN; otherwise the element
// of rank (size - 1) / 2, ties ordered by index. out[1] (indices) may be null.
template <class T>
void median_typed(const DimLoop& L) {
  using M = opmath_t<T>;
  const int64_t D = L.size, inner = L.inner;
  T* values = reinterpret_cast<T*>(L.out[0]);
  int64_t* indices = reinterpret_cast<int64_t*>(L.out[1]);
  for_each_line<T>(L, [&](std::vector<std::pair<M, int64_t>>& buf, int64_t o, int64_t i) {
    auto nan =
        std::find_if(buf.begin(), buf.end(), [](const auto& p) { return red_isnan(p.first); });
    auto pick = nan;
    if (nan == buf.end()) {
      pick = buf.begin() + (D - 1) / 2;
      std::nth_element(buf.begin(), pick, buf.end(), ByIndexOnTies<Ascending<M>>{});
    }
    values[o * inner + i] = static_cast<T>(pick->first);
    if (indices) indices[o * inner + i] = pick->second;
  });
}

void median_kernel(const DimLoop& L) {
  if (L.outer * L.size * L.inner == 0) return;
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) median_typed<T>(L);
  });
}

template <class T>
struct IsFloatT : std::bool_constant<is_float_type_v<T>> {};
template <class T>
struct IsNotBoolT : std::bool_constant<!std::is_same_v<T, bool>> {};

}  // namespace

void register_cpu_reduce_dim_kernels() {
  constexpr DtypeMask kFloats = dtype_mask_where<IsFloatT>();
  constexpr DtypeMask kNotBool = dtype_mask_where<IsNotBoolT>();
  register_kernel<OpId::softmax>(kCPU, &softmax_kernel<false>, kFloats);
  register_kernel<OpId::log_softmax>(kCPU, &softmax_kernel<true>, kFloats);
  register_kernel<OpId::softmax_backward>(kCPU, &softmax_backward_kernel<false>, kFloats);
  register_kernel<OpId::log_softmax_backward>(kCPU, &softmax_backward_kernel<true>, kFloats);
  register_kernel<OpId::cumsum>(kCPU, &scan_kernel<false>, kAllDtypes);
  register_kernel<OpId::cumprod>(kCPU, &scan_kernel<true>, kAllDtypes);
  register_kernel<OpId::sort>(kCPU, &sort_kernel, kAllDtypes);
  register_kernel<OpId::topk>(kCPU, &topk_kernel, kNotBool);
  register_kernel<OpId::median>(kCPU, &median_kernel, kNotBool);
}

}  // namespace ember
