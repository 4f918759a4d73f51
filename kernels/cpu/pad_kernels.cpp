// CPU kernels of padding by index maps and of im2col/col2im (see pad_kernels.h).
//
// Why index maps: reflect, replicate and circular padding (with negative pads too) differ only in
// which input position each output position reads, per dim. The host builds one int64 map per
// padded dim (out_size entries, a few KB at most), and a single gather / scatter-add pair does
// every mode and rank. The map lookups cost little beside the memory traffic: the innermost dim's
// unchanged run (all but the pads) is one memcpy per row.
#include "kernels/cpu/pad_kernels.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ember/core/half.h"
#include "kernels/common/visit.h"
#include "src/core/parallel.h"

namespace ember::kernels {
namespace {

// The padded dims as exactly three (leading ones of size 1 when nd < 3), so every loop is 3-deep.
struct PadDims3 {
  int64_t in[3], out[3];
  const int64_t* map[3];
};

const int64_t kPadZeroIndex = 0;

PadDims3 pad_dims3(const PadIndexParams& p) {
  PadDims3 g{};
  const int lead = 3 - p.nd;
  for (int d = 0; d < 3; ++d) {
    if (d < lead) {
      g.in[d] = g.out[d] = 1;
      g.map[d] = &kPadZeroIndex;
    } else {
      g.in[d] = p.in_size[d - lead];
      g.out[d] = p.out_size[d - lead];
      g.map[d] = p.map[d - lead];
    }
  }
  return g;
}

// The longest run [c0, c0 + len) of the innermost map that reads consecutive input positions:
// the unpadded middle, copied with one memcpy per row.
void pad_identity_run(const int64_t* map, int64_t n, int64_t& c0, int64_t& len) {
  c0 = 0;
  len = 0;
  int64_t i = 0;
  while (i < n) {
    int64_t j = i + 1;
    while (j < n && map[j] == map[j - 1] + 1) ++j;
    if (j - i > len) {
      c0 = i;
      len = j - i;
    }
    i = j;
  }
}

// E: an unsigned type of the element's size (the gather only moves bytes).
template <class E>
void pad_gather(const PadIndexParams& p) {
  const PadDims3 g = pad_dims3(p);
  int64_t c0 = 0, len = 0;
  pad_identity_run(g.map[2], g.out[2], c0, len);
  const E* src = static_cast<const E*>(p.src);
  E* dst = static_cast<E*>(p.dst);
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t rows = p.outer * g.out[0] * g.out[1];
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(g.out[2], 1));
  const int64_t* m2 = g.map[2];
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t o1 = r % g.out[1], o0 = (r / g.out[1]) % g.out[0];
      const int64_t b = r / (g.out[1] * g.out[0]);
      const E* s = src + b * in_plane + (g.map[0][o0] * g.in[1] + g.map[1][o1]) * g.in[2];
      E* o = dst + r * g.out[2];
      for (int64_t c = 0; c < c0; ++c) o[c] = s[m2[c]];
      if (len > 0) std::memcpy(o + c0, s + m2[c0], static_cast<size_t>(len) * sizeof(E));
      for (int64_t c = c0 + len; c < g.out[2]; ++c) o[c] = s[m2[c]];
    }
  });
}

template <class T>
void pad_scatter_add(const PadIndexParams& p) {
  const PadDims3 g = pad_dims3(p);
  const T* src = static_cast<const T*>(p.src);
  T* dst = static_cast<T*>(p.dst);
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(out_plane, 1));
  int64_t c0 = 0, len = 0;
  pad_identity_run(g.map[2], g.out[2], c0, len);
  const int64_t* m2 = g.map[2];
  parallel_for(0, p.outer, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      T* d = dst + b * in_plane;
      std::fill(d, d + in_plane, T(0));
      const T* s = src + b * out_plane;
      for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
          T* drow = d + (g.map[0][o0] * g.in[1] + g.map[1][o1]) * g.in[2];
          const T* srow = s + (o0 * g.out[1] + o1) * g.out[2];
          for (int64_t c = 0; c < c0; ++c) drow[m2[c]] += srow[c];
          // The unpadded run adds contiguous rows (vectorised); its positions never repeat.
          T* dmid = drow + (len > 0 ? m2[c0] : 0);
          const T* smid = srow + c0;
          for (int64_t c = 0; c < len; ++c) dmid[c] += smid[c];
          for (int64_t c = c0 + len; c < g.out[2]; ++c) drow[m2[c]] += srow[c];
        }
    }
  });
}

template <class T>
void im2col_impl(const Im2ColParams& p) {
  const T* img = static_cast<const T*>(p.src);
  T* cols = static_cast<T*>(p.dst);
  const int64_t blocks = p.out_h * p.out_w, plane = p.height * p.width;
  const int64_t rows = p.batch * p.channels * p.kh * p.kw;  // one row of cols each
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(blocks, 1));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t kj = r % p.kw, ki = (r / p.kw) % p.kh, nc = r / (p.kw * p.kh);
      const T* src = img + nc * plane;
      T* dst = cols + r * blocks;
      for (int64_t by = 0; by < p.out_h; ++by) {
        const int64_t y = by * p.sh - p.ph + ki * p.dh;
        T* drow = dst + by * p.out_w;
        if (y < 0 || y >= p.height) {
          std::fill(drow, drow + p.out_w, T(0));
          continue;
        }
        const T* srow = src + y * p.width;
        for (int64_t bx = 0; bx < p.out_w; ++bx) {
          const int64_t x = bx * p.sw - p.pw + kj * p.dw;
          drow[bx] = (x >= 0 && x < p.width) ? srow[x] : T(0);
        }
      }
    }
  });
}

template <class T>
void col2im_impl(const Im2ColParams& p) {
  const T* cols = static_cast<const T*>(p.src);
  T* img = static_cast<T*>(p.dst);
  const int64_t blocks = p.out_h * p.out_w, plane = p.height * p.width;
  const int64_t per_plane = p.kh * p.kw * blocks;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(per_plane, 1));
  parallel_for(0, p.batch * p.channels, grain, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      T* dst = img + q * plane;
      std::fill(dst, dst + plane, T(0));
      for (int64_t ki = 0; ki < p.kh; ++ki)
        for (int64_t kj = 0; kj < p.kw; ++kj) {
          const T* src = cols + ((q * p.kh + ki) * p.kw + kj) * blocks;
          for (int64_t by = 0; by < p.out_h; ++by) {
            const int64_t y = by * p.sh - p.ph + ki * p.dh;
            if (y < 0 || y >= p.height) continue;
            T* drow = dst + y * p.width;
            const T* srow = src + by * p.out_w;
            for (int64_t bx = 0; bx < p.out_w; ++bx) {
              const int64_t x = bx * p.sw - p.pw + kj * p.dw;
              if (x >= 0 && x < p.width) drow[x] += srow[bx];
            }
          }
        }
    }
  });
}

template <class Fn>
void pad_visit_float(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace

void cpu_pad_nd(ScalarType dtype, const PadIndexParams& p) {
  if (p.outer == 0) return;
  for (int d = 0; d < p.nd; ++d)
    if (p.out_size[d] == 0) return;
  switch (element_size(dtype)) {
    case 1:
      return pad_gather<uint8_t>(p);
    case 2:
      return pad_gather<uint16_t>(p);
    case 4:
      return pad_gather<uint32_t>(p);
    default:
      return pad_gather<uint64_t>(p);
  }
}

void cpu_pad_nd_backward(ScalarType dtype, const PadIndexParams& p) {
  if (p.outer == 0) return;
  visit_float_or_double(dtype, [&](auto v) { pad_scatter_add<decltype(v)>(p); });
}

void cpu_im2col(ScalarType dtype, const Im2ColParams& p) {
  if (p.batch * p.channels * p.kh * p.kw * p.out_h * p.out_w == 0) return;
  pad_visit_float(dtype, [&](auto tag) { im2col_impl<typename decltype(tag)::type>(p); });
}

void cpu_col2im(ScalarType dtype, const Im2ColParams& p) {
  if (p.batch * p.channels * p.height * p.width == 0) return;
  visit_float_or_double(dtype, [&](auto v) { col2im_impl<decltype(v)>(p); });
}

}  // namespace ember::kernels
