// CPU loops for gather/scatter-style indexing; see index_kernels.h for the operand layouts.
#include "kernels/cpu/index_kernels.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ember/core/macros.h"
#include "kernels/common/visit.h"
#include "kernels/common/visit_width.h"
#include "src/core/parallel.h"

namespace ember::kernels {

namespace {

// Walks the coalesced iteration space of L like cpu_kernel does, but hands the body the operand
// pointers of a whole inner row: f(ptrs, inner_strides, n). Rows split over threads above `grain`.
template <int N, class F>
void for_each_row(const ElementwiseLoop& L, int64_t grain, const F& f) {
  parallel_for(0, L.numel, grain, [&](int64_t begin, int64_t end) {
    int64_t idx[kMaxLoopDims];
    char* ptrs[N];
    for (int k = 0; k < N; ++k) ptrs[k] = L.data[k];
    int64_t rem = begin;
    for (int d = 0; d < L.ndim; ++d) {
      idx[d] = rem % L.sizes[d];
      rem /= L.sizes[d];
      for (int k = 0; k < N; ++k) ptrs[k] += idx[d] * L.strides[k][d];
    }
    int64_t inner[N];
    for (int k = 0; k < N; ++k) inner[k] = L.ndim ? L.strides[k][0] : 0;
    int64_t left = end - begin;
    while (left > 0) {
      int64_t n = L.ndim ? std::min(L.sizes[0] - idx[0], left) : left;
      f(ptrs, inner, n);
      left -= n;
      if (left == 0 || L.ndim == 0) break;
      for (int k = 0; k < N; ++k) ptrs[k] -= idx[0] * L.strides[k][0];
      idx[0] = 0;
      for (int d = 1; d < L.ndim; ++d) {
        ++idx[d];
        for (int k = 0; k < N; ++k) ptrs[k] += L.strides[k][d];
        if (idx[d] < L.sizes[d]) break;
        for (int k = 0; k < N; ++k) ptrs[k] -= idx[d] * L.strides[k][d];
        idx[d] = 0;
      }
    }
  });
}

// A gather costs a cache miss per element, so threads pay off earlier than for streaming loops.
constexpr int64_t kIndexGrain = 8192;
constexpr int64_t kSerial = std::numeric_limits<int64_t>::max();

// Element offset of index value v (see index_kernels.h).
struct Offset {
  int64_t stride, size;
  EMBER_ALWAYS_INLINE int64_t operator()(const char* p) const {
    const int64_t v = *reinterpret_cast<const int64_t*>(p);
    return (v < 0 ? v + size : v) * stride;
  }
};

template <class T>
bool is_nonzero(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v;
  else
    return static_cast<opmath_t<T>>(v) != opmath_t<T>(0);
}

// Walks a contiguous buffer of `sizes` row by row (rows = all dims but the last), calling
// row(coord, base) with the row's coordinates and the flat position of its first element.
template <class F>
void for_each_row_of(const int64_t* sizes, int64_t ndim, const F& row) {
  int64_t coord[kMaxNonzeroDims] = {};
  const int64_t last = ndim == 0 ? 1 : sizes[ndim - 1];
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < ndim; ++d) rows *= sizes[d];
  if (last == 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    row(static_cast<const int64_t*>(coord), r * last);
    for (int64_t d = ndim - 2; d >= 0; --d) {
      if (++coord[d] < sizes[d]) break;
      coord[d] = 0;
    }
  }
}

}  // namespace

void cpu_index_gather(const ElementwiseLoop& L) {
  const Offset offset{L.scalars.i[0], L.scalars.i[1]};
  visit_width(element_size(L.out_dtype), [&](auto w) {
    using W = decltype(w);
    constexpr int64_t kW = sizeof(W);
    for_each_row<3>(L, kIndexGrain, [&](char** p, const int64_t* s, int64_t n) {
      if (s[2] == 0) {  // one index for the whole row (index_select, embedding lookups)
        const char* src = p[1] + offset(p[2]) * kW;
        if (s[0] == kW && s[1] == kW) {
          std::memcpy(p[0], src, n * kW);
        } else {
          for (int64_t i = 0; i < n; ++i) std::memcpy(p[0] + i * s[0], src + i * s[1], kW);
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(p[0] + i * s[0], p[1] + i * s[1] + offset(p[2] + i * s[2]) * kW, kW);
    });
  });
}

void cpu_index_put(const ElementwiseLoop& L, bool accumulate) {
  const Offset offset{L.scalars.i[0], L.scalars.i[1]};
  if (!accumulate) {
    visit_width(element_size(L.out_dtype), [&](auto w) {
      using W = decltype(w);
      constexpr int64_t kW = sizeof(W);
      for_each_row<3>(L, kIndexGrain, [&](char** p, const int64_t* s, int64_t n) {
        if (s[2] == 0) {
          char* dst = p[0] + offset(p[2]) * kW;
          if (s[0] == kW && s[1] == kW) {
            std::memmove(dst, p[1], n * kW);
          } else {
            for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * s[0], p[1] + i * s[1], kW);
          }
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(p[0] + i * s[0] + offset(p[2] + i * s[2]) * kW, p[1] + i * s[1], kW);
      });
    });
    return;
  }
  visit_dtype(L.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto add = [](T* dst, T v) {
      if constexpr (std::is_same_v<T, bool>)
        *dst = *dst || v;
      else
        *dst = static_cast<T>(static_cast<opmath_t<T>>(*dst) + static_cast<opmath_t<T>>(v));
    };
    for_each_row<3>(L, kSerial, [&](char** p, const int64_t* s, int64_t n) {
      const int64_t row_off = s[2] == 0 ? offset(p[2]) : 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t off = s[2] == 0 ? row_off : offset(p[2] + i * s[2]);
        add(reinterpret_cast<T*>(p[0] + i * s[0]) + off,
            *reinterpret_cast<const T*>(p[1] + i * s[1]));
      }
    });
  });
}

void cpu_masked_fill(const ElementwiseLoop& L, const void* value) {
  visit_width(element_size(L.out_dtype), [&](auto w) {
    using W = decltype(w);
    W v;
    std::memcpy(&v, value, sizeof(W));
    for_each_row<2>(L, kElementwiseGrain, [v](char** p, const int64_t* s, int64_t n) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(p[1]);
      if (s[0] == int64_t(sizeof(W)) && s[1] == 1) {
        // Dense: a branch-free select the compiler vectorises (a random mask would mispredict
        // every other element, ~5 ns each).
        W* out = reinterpret_cast<W*>(p[0]);
        for (int64_t i = 0; i < n; ++i) {
          const W keep = static_cast<W>(0 - static_cast<W>(m[i] != 0));
          out[i] = static_cast<W>((v & keep) | (out[i] & static_cast<W>(~keep)));
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        if (m[i * s[1]]) std::memcpy(p[0] + i * s[0], &v, sizeof(W));
    });
  });
}

int64_t cpu_count_nonzero(const void* data, ScalarType dtype, int64_t numel) {
  return visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(data);
    int64_t count = 0;
    for (int64_t i = 0; i < numel; ++i) count += is_nonzero(x[i]);
    return count;
  });
}

// Both loops below write every element's entry and advance the output only past true ones:
// branch-free, so random masks cost the same as sorted ones; `out` has one spare entry.
void cpu_nonzero_coords(const void* data, ScalarType dtype, const int64_t* sizes, int64_t ndim,
                        int64_t* out) {
  if (ndim == 0) return;  // a 0-dim input has no coordinates to write
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(data);
    const int64_t last = sizes[ndim - 1];
    for_each_row_of(sizes, ndim, [&](const int64_t* coord, int64_t base) {
      for (int64_t j = 0; j < last; ++j) {
        for (int64_t d = 0; d + 1 < ndim; ++d) out[d] = coord[d];
        out[ndim - 1] = j;
        out += ndim * static_cast<int64_t>(is_nonzero(x[base + j]));
      }
    });
  });
}

void cpu_mask_offsets(const bool* mask, const int64_t* sizes, const int64_t* strides, int64_t ndim,
                      int64_t* out) {
  const uint8_t* m = reinterpret_cast<const uint8_t*>(mask);
  const int64_t last = ndim == 0 ? 1 : sizes[ndim - 1];
  const int64_t last_stride = ndim == 0 ? 0 : strides[ndim - 1];
  for_each_row_of(sizes, ndim, [&](const int64_t* coord, int64_t base) {
    int64_t row = 0;
    for (int64_t d = 0; d + 1 < ndim; ++d) row += coord[d] * strides[d];
    for (int64_t j = 0; j < last; ++j) {
      *out = row + j * last_stride;
      out += m[base + j] != 0;
    }
  });
}

void cpu_min_max(const int64_t* data, int64_t n, int64_t* min, int64_t* max) {
  int64_t lo = data[0], hi = data[0];
  for (int64_t i = 1; i < n; ++i) {
    lo = std::min(lo, data[i]);
    hi = std::max(hi, data[i]);
  }
  *min = lo;
  *max = hi;
}

}  // namespace ember::kernels
