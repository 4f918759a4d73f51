// Row kernels for embeddings (see embedding_kernels.h).
//
// Why not index_select/index_add: index_add walks its operands element by element with index
// arithmetic per element; adding 8192 gradient rows of 128 floats into a 50000-row table took
// 6 ms of it here against ~0.3 ms for row-wise adds. These loops move whole rows.
#include "kernels/cpu/embedding_kernels.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/core/half.h"
#include "kernels/common/visit.h"
#include "src/core/parallel.h"

namespace ember::kernels {
namespace {

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

int64_t rows_grain(int64_t d) {
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(d, 1));
}

template <class Fn>
void visit_float(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

template <class T>
void bag_sum(const BagSumRowsParams& p) {
  using A = acc_t<T>;
  const int64_t d = p.d;
  const T* tab = static_cast<const T*>(p.table);
  const T* wt = static_cast<const T*>(p.w);
  T* o = static_cast<T*>(p.out);
  parallel_for(0, p.bags, std::max<int64_t>(1, rows_grain(d) / 8), [&](int64_t b0, int64_t b1) {
    std::vector<A> acc(static_cast<size_t>(d));
    for (int64_t b = b0; b < b1; ++b) {
      std::fill(acc.begin(), acc.end(), A(0));
      for (int64_t k = p.bag_start[b]; k < p.bag_start[b + 1]; ++k) {
        const T* row = tab + p.idx[k] * d;
        if (wt) {
          const A s = static_cast<A>(wt[k]);
          for (int64_t j = 0; j < d; ++j) acc[j] += s * static_cast<A>(row[j]);
        } else {
          for (int64_t j = 0; j < d; ++j) acc[j] += static_cast<A>(row[j]);
        }
      }
      T* ob = o + b * d;
      if (p.div) {
        const A q = static_cast<A>(p.div[b]);
        for (int64_t j = 0; j < d; ++j) ob[j] = static_cast<T>(acc[j] / q);
      } else {
        for (int64_t j = 0; j < d; ++j) ob[j] = static_cast<T>(acc[j]);
      }
    }
  });
}

// One bag's maxima: best[j] and the winning entry's offset pos[j] in the bag. P is as wide as A
// (int32 beside float) and every store happens, so the loop becomes vector compares and blends.
// With branches (half of them mispredicted on random data) or int64 positions beside float values
// (GCC then does not vectorise), 2048 bags of 20 rows of 128 floats took 40 ms on one core, 6 ms
// this way.
template <class T, class A, class P>
void max_of_bag(const T* tab, int64_t d, const int64_t* idx, int64_t k0, int64_t k1, A* best,
                P* pos) {
  const T* first = tab + idx[k0] * d;
  for (int64_t j = 0; j < d; ++j) {
    best[j] = static_cast<A>(first[j]);
    pos[j] = 0;
  }
  for (int64_t k = k0 + 1; k < k1; ++k) {
    const T* row = tab + idx[k] * d;
    const P at = static_cast<P>(k - k0);
    for (int64_t j = 0; j < d; ++j) {
      const A v = static_cast<A>(row[j]);
      const bool wins = v > best[j];
      best[j] = wins ? v : best[j];
      pos[j] = wins ? at : pos[j];
    }
  }
}

// Comparisons in A are exact (the widening is monotonic), so the winner is the table's own
// element and the output copies it unchanged.
template <class T>
void bag_max(const BagSumRowsParams& p) {
  using A = acc_t<T>;
  using P = std::conditional_t<sizeof(A) == 8, int64_t, int32_t>;
  const int64_t d = p.d;
  parallel_for(0, p.bags, std::max<int64_t>(1, rows_grain(d) / 8), [&](int64_t b0, int64_t b1) {
    const T* tab = static_cast<const T*>(p.table);
    std::vector<A> best(static_cast<size_t>(d));
    std::vector<P> pos(static_cast<size_t>(d));
    std::vector<int64_t> pos64;
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t k0 = p.bag_start[b], k1 = p.bag_start[b + 1];
      T* ob = static_cast<T*>(p.out) + b * d;
      int64_t* ab = p.arg + b * d;
      if (k0 == k1) {
        std::fill(ob, ob + d, T(0));
        std::fill(ab, ab + d, int64_t(0));
        continue;
      }
      if (k1 - k0 <= std::numeric_limits<P>::max()) {
        max_of_bag(tab, d, p.idx, k0, k1, best.data(), pos.data());
        for (int64_t j = 0; j < d; ++j) ab[j] = p.idx[k0 + pos[j]];
      } else {  // a bag of 2^31 entries or more: positions need 64 bits
        pos64.resize(static_cast<size_t>(d));
        max_of_bag(tab, d, p.idx, k0, k1, best.data(), pos64.data());
        for (int64_t j = 0; j < d; ++j) ab[j] = p.idx[k0 + pos64[j]];
      }
      for (int64_t j = 0; j < d; ++j) ob[j] = static_cast<T>(best[j]);
    }
  });
}

template <class T>
void scatter_rows(const ScatterAddRowsParams& p) {
  using A = acc_t<T>;
  const int64_t d = p.d, n = p.n;
  T* out = static_cast<T*>(p.dst);
  const T* in = static_cast<const T*>(p.src);
  // Each task owns a range of destination rows and applies the entries that land in it.
  const int64_t tasks =
      std::min<int64_t>(get_num_threads(), std::max<int64_t>(1, n * d / kElementwiseGrain));
  const int64_t per = (p.dst_rows + tasks - 1) / std::max<int64_t>(tasks, 1);
  parallel_for(0, tasks, 1, [&](int64_t t0, int64_t t1) {
    const int64_t lo = t0 * per, hi = std::min(p.dst_rows, t1 * per);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t r = p.idx[k];
      if (r < lo || r >= hi) continue;
      const T* s = in + (p.src_row ? p.src_row[k] : k) * d;
      T* o = out + r * d;
      const A c = p.coef ? static_cast<A>(p.coef[k]) : A(1);
      if (!p.accumulate) {
        for (int64_t j = 0; j < d; ++j) o[j] = static_cast<T>(c * static_cast<A>(s[j]));
      } else if (p.coef) {
        for (int64_t j = 0; j < d; ++j)
          o[j] = static_cast<T>(static_cast<A>(o[j]) + c * static_cast<A>(s[j]));
      } else {
        for (int64_t j = 0; j < d; ++j)
          o[j] = static_cast<T>(static_cast<A>(o[j]) + static_cast<A>(s[j]));
      }
    }
  });
}

}  // namespace

void cpu_gather_rows(ScalarType dtype, const GatherRowsParams& p) {
  if (p.n == 0 || p.d == 0) return;
  const size_t row_bytes = static_cast<size_t>(p.d) * element_size(dtype);
  const char* src = static_cast<const char*>(p.table);
  char* dst = static_cast<char*>(p.out);
  parallel_for(0, p.n, rows_grain(p.d), [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k)
      std::memcpy(dst + k * row_bytes, src + p.idx[k] * row_bytes, row_bytes);
  });
}

void cpu_bag_rows(ScalarType dtype, const BagSumRowsParams& p) {
  if (p.bags == 0 || p.d == 0) return;
  visit_float(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (p.mode == BagSumRowsParams::Mode::Max)
      bag_max<T>(p);
    else
      bag_sum<T>(p);
  });
}

void cpu_scatter_add_rows(ScalarType dtype, const ScatterAddRowsParams& p) {
  if (p.n == 0 || p.d == 0) return;
  visit_float(dtype, [&](auto tag) { scatter_rows<typename decltype(tag)::type>(p); });
}

}  // namespace ember::kernels
