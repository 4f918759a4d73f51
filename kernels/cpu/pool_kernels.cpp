// Strided CPU loops of the pool family (fractional max pooling is in pool_fractional.cpp, the
// shared plane geometry in pool_geometry.h). Each output element is computed by one thread from
// its own window, so forward loops split the (plane, output position) range; backward loops write
// overlapping windows of one plane, so they split planes only (no atomics, deterministic sums).
#include "kernels/cpu/pool_kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/core/half.h"
#include "kernels/common/visit.h"
#include "kernels/cpu/pool_geometry.h"
#include "kernels/cpu/pool_max2x2.h"
#include "kernels/cpu/pool_onednn.h"
#include "src/core/parallel.h"

namespace ember::kernels {
namespace {

using namespace pool_loops;

// The in-range taps of one window along one dim: begin, begin + step, ... < end; `padded` is
// the window's length counted over the zero padding (count_include_pad's divisor factor).
struct PoolTaps {
  int64_t begin, end, step, padded;
};

PoolTaps pool_taps(const PoolParams& p, int i, int64_t o) {
  const int64_t in = p.in.size[i];
  if (p.adaptive) {
    const int64_t out = p.out.size[i];
    const int64_t b = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
    return {b, e, 1, e - b};
  }
  const int64_t s = o * p.stride[i] - p.pad[i], d = p.dilation[i];
  const int64_t padded = std::min(s + p.kernel[i], in + p.pad[i]) - s;
  int64_t b = s;
  if (b < 0) b += ((-b + d - 1) / d) * d;
  const int64_t e = std::min(s + (p.kernel[i] - 1) * d + 1, in);
  return {b, e, d, padded};
}

int64_t tap_count(const PoolTaps& t) {
  return t.end > t.begin ? (t.end - t.begin + t.step - 1) / t.step : 0;
}

int64_t window_volume(const PoolParams& p) {
  if (p.adaptive) {
    int64_t v = 1;
    for (int i = 0; i < kPoolMaxDims; ++i)
      v *= (p.in.size[i] + p.out.size[i] - 1) / std::max<int64_t>(1, p.out.size[i]) + 1;
    return v;
  }
  return p.kernel[0] * p.kernel[1] * p.kernel[2];
}

// The divisor of one average window (PyTorch's avg_pool rules; adaptive windows divide by their
// own length).
int64_t avg_divisor(const PoolParams& p, const PoolTaps& td, const PoolTaps& th,
                    const PoolTaps& tw) {
  if (p.divisor_override != 0 && !p.adaptive) return p.divisor_override;
  if (p.adaptive || !p.count_include_pad) return tap_count(td) * tap_count(th) * tap_count(tw);
  return td.padded * th.padded * tw.padded;
}

// The taps of every output position along each dim, computed once per call (the window
// arithmetic has divisions; per output element it cost more than the taps themselves).
struct PoolTapTable {
  std::vector<PoolTaps> dim[kPoolMaxDims];
  explicit PoolTapTable(const PoolParams& p) {
    for (int i = 0; i < kPoolMaxDims; ++i) {
      dim[i].resize(static_cast<size_t>(p.out.size[i]));
      for (int64_t o = 0; o < p.out.size[i]; ++o)
        dim[i][static_cast<size_t>(o)] = pool_taps(p, i, o);
    }
  }
};

// What one window reduces to: the running max and its index, or the running sum.
template <class Acc, bool kMax>
struct PoolReducer {
  Acc value;
  int64_t index;
  void start(int64_t first) {
    value = kMax ? -std::numeric_limits<Acc>::infinity() : Acc(0);
    index = first;
  }
  // PyTorch's max rule: a strictly greater value or a NaN takes over, so ties keep the first
  // maximum and NaN propagates.
  void add(Acc v, int64_t flat) {
    if constexpr (kMax) {
      const bool take = (v > value) | (v != v);  // a select, not a branch that mispredicts
      value = take ? v : value;
      index = take ? flat : index;
    } else {
      value += v;
    }
  }
};

template <class Acc>
Acc avg_of(Acc sum, const PoolParams& p, const PoolTaps& td, const PoolTaps& th,
           const PoolTaps& tw) {
  const int64_t div = avg_divisor(p, td, th, tw);
  // A window wholly in the padding (possible with ceil_mode) averages nothing: 0, as PyTorch.
  if (div == 0 || tap_count(td) * tap_count(th) * tap_count(tw) == 0) return Acc(0);
  return sum / static_cast<Acc>(div);
}

// dst[i] = src[i·step]. Strides 1 and 2 (most pools) get loops with a constant stride, which
// the compiler vectorises (2: an even/odd deinterleave); a runtime stride stays scalar.
template <class Acc, class T>
void gather_taps(Acc* __restrict__ dst, const T* __restrict__ src, int64_t n, int64_t step) {
  if (step == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Acc>(src[i]);
  } else if (step == 2) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Acc>(src[2 * i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Acc>(src[i * step]);
  }
}

// The running maxima of n outputs against one tap each (v_in): tap i's flat input index is
// origin[i] + tap. Everything by value or restrict, so the stores alias nothing the loop reads
// (the compiler otherwise reloads and gives up vectorising).
template <class Acc>
void select_max_plane(Acc* __restrict__ val, int64_t* __restrict__ idx,
                      const Acc* __restrict__ v_in, const int64_t* __restrict__ origin, int64_t n,
                      int64_t tap) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const Acc v = v_in[i], b = val[i];
    const bool take = (v > b) | (v != v);
    val[i] = take ? v : b;
    idx[i] = take ? origin[i] + tap : idx[i];
  }
}

// Windowed max pooling of planar layouts (NCHW, NCDHW, any element strides), a whole plane per
// pass and tap: for each tap of the window (in PyTorch's d, h, w order, so ties keep the first
// maximum) the tap's value for every output of the plane is gathered into a dense run (-inf where
// the tap falls outside the input, which never wins), then one vectorised select over the plane.
// A branch per tap mispredicts on half of random inputs, and a pass per output row spends its
// time in loop overheads (rows are 12 columns in LeNet): LeNet's 2x2 pool of [64, 32, 24, 24],
// one Xeon thread, 9.8 ms branching, 5.0 ms by rows, 1.1-1.2 ms by planes.
template <class T>
void max_pool_planar(const PoolParams& p, const PoolTapTable& tab) {
  using Acc = opmath_t<T>;
  const T* x = static_cast<const T*>(p.input);
  T* y = static_cast<T*>(p.output);
  const int64_t od_n = p.out.size[0], oh_n = p.out.size[1], ow_n = p.out.size[2];
  const int64_t in_h = p.in.size[1], in_w = p.in.size[2], in_hw = in_h * in_w;
  const int64_t ovol = p.out.volume(), planes = p.batch * p.channels;
  // Per output position: the flat input index of its window's origin (tap offsets are added to
  // it) and of its first in-range tap (the index of an all-NaN-free window of -inf, PyTorch's).
  std::vector<int64_t> origin(static_cast<size_t>(ovol)), first(static_cast<size_t>(ovol));
  for (int64_t o = 0; o < ovol; ++o) {
    const PoolPos q = split_pos(p.out, o);
    origin[static_cast<size_t>(o)] =
        q.d * p.stride[0] * in_hw + q.h * p.stride[1] * in_w + q.w * p.stride[2];
    first[static_cast<size_t>(o)] = (tab.dim[0][static_cast<size_t>(q.d)].begin * in_h +
                                     tab.dim[1][static_cast<size_t>(q.h)].begin) *
                                        in_w +
                                    tab.dim[2][static_cast<size_t>(q.w)].begin;
  }
  // Along dim i, tap k is inside the input for output positions [lo, hi).
  auto valid_range = [&](int i, int64_t k, int64_t* lo, int64_t* hi) {
    const int64_t off = k * p.dilation[i] - p.pad[i], step = p.stride[i], n = p.out.size[i];
    *lo = off >= 0 ? 0 : std::min(n, (-off + step - 1) / step);
    *hi = p.in.size[i] - 1 - off < 0 ? 0 : std::min(n, (p.in.size[i] - 1 - off) / step + 1);
    *hi = std::max(*hi, *lo);
  };
  const bool out_dense = plane_is_dense(p.out);
  parallel_for(0, planes, pool_grain(ovol * window_volume(p)), [&](int64_t begin, int64_t end) {
    constexpr Acc kNegInf = -std::numeric_limits<Acc>::infinity();
    std::vector<Acc> val(static_cast<size_t>(ovol)), taps(static_cast<size_t>(ovol));
    std::vector<int64_t> idx(static_cast<size_t>(ovol));
    Acc* __restrict__ vp = val.data();
    Acc* __restrict__ tp = taps.data();
    int64_t* __restrict__ ip = idx.data();
    const int64_t sd = p.stride[0], sh = p.stride[1], sw = p.stride[2];
    const int64_t xs0 = p.in.stride[0], xs1 = p.in.stride[1], xs2 = p.in.stride[2];
    for (int64_t plane = begin; plane < end; ++plane) {
      const T* xp = x + plane_offset(p.in, plane, p.channels);
      std::fill(val.begin(), val.end(), kNegInf);
      std::copy(first.begin(), first.end(), idx.begin());
      for (int64_t kd = 0; kd < p.kernel[0]; ++kd) {
        int64_t d_lo, d_hi;
        valid_range(0, kd, &d_lo, &d_hi);
        for (int64_t kh = 0; kh < p.kernel[1]; ++kh) {
          int64_t h_lo, h_hi;
          valid_range(1, kh, &h_lo, &h_hi);
          for (int64_t kw = 0; kw < p.kernel[2]; ++kw) {
            int64_t w_lo, w_hi;
            valid_range(2, kw, &w_lo, &w_hi);
            const int64_t off_d = kd * p.dilation[0] - p.pad[0];
            const int64_t off_h = kh * p.dilation[1] - p.pad[1];
            const int64_t off_w = kw * p.dilation[2] - p.pad[2];
            // The tap's offset in flat (plane-index) units and in memory (element strides).
            const int64_t tap = off_d * in_hw + off_h * in_w + off_w;
            const int64_t tap_mem = off_d * xs0 + off_h * xs1 + off_w * xs2;
            for (int64_t od = 0; od < od_n; ++od)
              for (int64_t oh = 0; oh < oh_n; ++oh) {
                Acc* row = tp + (od * oh_n + oh) * ow_n;
                if (od < d_lo || od >= d_hi || oh < h_lo || oh >= h_hi) {
                  std::fill(row, row + ow_n, kNegInf);
                  continue;
                }
                const T* xr = xp + od * sd * xs0 + oh * sh * xs1 + tap_mem;
                std::fill(row, row + w_lo, kNegInf);
                gather_taps(row + w_lo, xr + w_lo * sw * xs2, w_hi - w_lo, sw * xs2);
                std::fill(row + w_hi, row + ow_n, kNegInf);
              }
            select_max_plane(vp, ip, tp, origin.data(), ovol, tap);
          }
        }
      }
      const int64_t yp = plane_offset(p.out, plane, p.channels);
      if (out_dense) {
        for (int64_t o = 0; o < ovol; ++o) y[yp + o] = static_cast<T>(vp[o]);
        if (p.indices) std::copy(idx.begin(), idx.end(), p.indices + yp);
      } else {
        for (int64_t o = 0; o < ovol; ++o) {
          const PoolPos q = split_pos(p.out, o);
          const int64_t yo = yp + offset_of(p.out, q.d, q.h, q.w);
          y[yo] = static_cast<T>(vp[o]);
          if (p.indices) p.indices[yo] = ip[o];
        }
      }
    }
  });
}

// Windowed or adaptive max/avg pooling. Channels-last operands (channel stride 1 on both sides)
// run channels as the inner loop, so each tap is a contiguous run of C values; other layouts run
// output rows with the taps of each output column.
template <class T, bool kMax>
void pool_forward_impl(const PoolParams& p) {
  using Acc = opmath_t<T>;
  const T* x = static_cast<const T*>(p.input);
  T* y = static_cast<T*>(p.output);
  const PoolTapTable tab(p);
  const int64_t od_n = p.out.size[0], oh_n = p.out.size[1], ow_n = p.out.size[2];
  const int64_t in_h = p.in.size[1], in_w = p.in.size[2];
  const int64_t wv = window_volume(p);
  const bool channels_last = p.channels > 1 && p.in.stride_c == 1 && p.out.stride_c == 1;
  if (channels_last) {
    const int64_t C = p.channels, ovol = p.out.volume();  // locals: the lambda reads no member
    parallel_for(0, p.batch * ovol, pool_grain(wv * C), [&](int64_t begin, int64_t end) {
      // Values and indices side by side (not as pairs), so the channel loop vectorises: a
      // select per lane instead of a branch.
      std::vector<Acc> val(static_cast<size_t>(C));
      std::vector<int64_t> idx(kMax ? static_cast<size_t>(C) : 0);
      Acc* __restrict__ vp = val.data();
      int64_t* __restrict__ ip = idx.data();
      for (int64_t k = begin; k < end; ++k) {
        const int64_t n = k / ovol;
        const PoolPos o = split_pos(p.out, k % ovol);
        const PoolTaps& td = tab.dim[0][static_cast<size_t>(o.d)];
        const PoolTaps& th = tab.dim[1][static_cast<size_t>(o.h)];
        const PoolTaps& tw = tab.dim[2][static_cast<size_t>(o.w)];
        const int64_t first = (td.begin * in_h + th.begin) * in_w + tw.begin;
        std::fill(val.begin(), val.end(), kMax ? -std::numeric_limits<Acc>::infinity() : Acc(0));
        if constexpr (kMax) std::fill(idx.begin(), idx.end(), first);
        const T* xn = x + n * p.in.stride_n;
        for (int64_t d = td.begin; d < td.end; d += td.step)
          for (int64_t h = th.begin; h < th.end; h += th.step)
            for (int64_t w = tw.begin; w < tw.end; w += tw.step) {
              const T* __restrict__ xp = xn + offset_of(p.in, d, h, w);
              if constexpr (kMax) {
                const int64_t flat = (d * in_h + h) * in_w + w;
#pragma omp simd
                for (int64_t c = 0; c < C; ++c) {
                  const Acc v = static_cast<Acc>(xp[c]), b = vp[c];
                  // v != v: NaN (PyTorch's rule). `|`, not `||`: no branch, so it vectorises.
                  const bool take = (v > b) | (v != v);
                  vp[c] = take ? v : b;
                  ip[c] = take ? flat : ip[c];
                }
              } else {
#pragma omp simd
                for (int64_t c = 0; c < C; ++c) vp[c] += static_cast<Acc>(xp[c]);
              }
            }
        const int64_t yo = n * p.out.stride_n + offset_of(p.out, o.d, o.h, o.w);
        if constexpr (kMax) {
          for (int64_t c = 0; c < C; ++c) y[yo + c] = static_cast<T>(vp[c]);
          if (p.indices)
            for (int64_t c = 0; c < C; ++c) p.indices[yo + c] = ip[c];
        } else {
          for (int64_t c = 0; c < C; ++c) y[yo + c] = static_cast<T>(avg_of(vp[c], p, td, th, tw));
        }
      }
    });
    return;
  }
  const int64_t rows = p.batch * p.channels * od_n * oh_n;
  if (kMax && !p.adaptive) {
    if (!max_pool_2x2<T>(p)) max_pool_planar<T>(p, tab);
    return;
  }
  parallel_for(0, rows, pool_grain(wv * ow_n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t plane = r / (od_n * oh_n), od = (r / oh_n) % od_n, oh = r % oh_n;
      const PoolTaps& td = tab.dim[0][static_cast<size_t>(od)];
      const PoolTaps& th = tab.dim[1][static_cast<size_t>(oh)];
      const T* xp = x + plane_offset(p.in, plane, p.channels);
      const int64_t yrow = plane_offset(p.out, plane, p.channels) + offset_of(p.out, od, oh, 0);
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        const PoolTaps& tw = tab.dim[2][static_cast<size_t>(ow)];
        PoolReducer<Acc, kMax> red;
        red.start((td.begin * in_h + th.begin) * in_w + tw.begin);
        for (int64_t d = td.begin; d < td.end; d += td.step)
          for (int64_t h = th.begin; h < th.end; h += th.step) {
            const T* xr = xp + d * p.in.stride[0] + h * p.in.stride[1];
            const int64_t flat_row = (d * in_h + h) * in_w;
            for (int64_t w = tw.begin; w < tw.end; w += tw.step)
              red.add(static_cast<Acc>(xr[w * p.in.stride[2]]), flat_row + w);
          }
        const int64_t yo = yrow + ow * p.out.stride[2];
        if constexpr (kMax) {
          y[yo] = static_cast<T>(red.value);
          if (p.indices) p.indices[yo] = red.index;
        } else {
          y[yo] = static_cast<T>(avg_of(red.value, p, td, th, tw));
        }
      }
    }
  });
}

template <class T>
void max_pool_impl(const PoolParams& p) {
  pool_forward_impl<T, true>(p);
}
template <class T>
void avg_pool_impl(const PoolParams& p) {
  pool_forward_impl<T, false>(p);
}

template <class T>
void zero_plane(T* base, const PoolGeometry& g) {
  if (plane_is_dense(g)) {
    std::fill(base, base + g.volume(), T(0));
    return;
  }
  for (int64_t d = 0; d < g.size[0]; ++d)
    for (int64_t h = 0; h < g.size[1]; ++h)
      for (int64_t w = 0; w < g.size[2]; ++w) base[offset_of(g, d, h, w)] = T(0);
}

template <class T>
void avg_pool_backward_impl(const PoolParams& p) {
  using Acc = opmath_t<T>;
  T* gx = static_cast<T*>(p.input);
  const T* gy = static_cast<const T*>(p.output);
  const int64_t ovol = p.out.volume(), planes = p.batch * p.channels;
  // 16-bit gradients accumulate in a float plane, rounded once at the end.
  constexpr bool kWiden = !std::is_same_v<Acc, T>;
  const int64_t grain = pool_grain(ovol * window_volume(p));
  const PoolTapTable tab(p);
  parallel_for(0, planes, grain, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(kWiden ? static_cast<size_t>(p.in.volume()) : 0);
    const int64_t in_h = p.in.size[1], in_w = p.in.size[2];
    for (int64_t plane = begin; plane < end; ++plane) {
      T* gxp = gx + plane_offset(p.in, plane, p.channels);
      const T* gyp = gy + plane_offset(p.out, plane, p.channels);
      if constexpr (kWiden)
        std::fill(acc.begin(), acc.end(), Acc(0));
      else
        zero_plane(gxp, p.in);
      for (int64_t k = 0; k < ovol; ++k) {
        const PoolPos o = split_pos(p.out, k);
        const PoolTaps& td = tab.dim[0][static_cast<size_t>(o.d)];
        const PoolTaps& th = tab.dim[1][static_cast<size_t>(o.h)];
        const PoolTaps& tw = tab.dim[2][static_cast<size_t>(o.w)];
        const int64_t div = avg_divisor(p, td, th, tw);
        if (div == 0) continue;
        const Acc g =
            static_cast<Acc>(gyp[offset_of(p.out, o.d, o.h, o.w)]) / static_cast<Acc>(div);
        for (int64_t d = td.begin; d < td.end; d += td.step)
          for (int64_t h = th.begin; h < th.end; h += th.step)
            for (int64_t w = tw.begin; w < tw.end; w += tw.step) {
              if constexpr (kWiden)
                acc[static_cast<size_t>((d * in_h + h) * in_w + w)] += g;
              else
                gxp[offset_of(p.in, d, h, w)] += g;
            }
      }
      if constexpr (kWiden) {
        for (int64_t i = 0; i < p.in.volume(); ++i) {
          const PoolPos q = split_pos(p.in, i);
          gxp[offset_of(p.in, q.d, q.h, q.w)] = static_cast<T>(acc[static_cast<size_t>(i)]);
        }
      }
    }
  });
}

// Records the first invalid index met by any thread.
struct PoolInvalid {
  std::atomic<bool> seen{false};
  int64_t value = 0;
  void report(int64_t v) {
    bool expected = false;
    if (seen.compare_exchange_strong(expected, true)) value = v;
  }
};

template <class T, bool kScatter>
void pool_index_impl(const PoolIndexParams& p) {
  if constexpr (kScatter && std::is_same_v<T, float>)
    if (max_pool_2x2_scatter(p)) return;
  using Acc = opmath_t<T>;
  T* small = static_cast<T*>(p.small_data);
  T* large = static_cast<T*>(p.large_data);
  const int64_t svol = p.small.volume(), lvol = p.large.volume(), planes = p.batch * p.channels;
  PoolInvalid invalid;
  constexpr bool kWiden = kScatter && !std::is_same_v<Acc, T>;
  const bool small_dense = plane_is_dense(p.small), large_dense = plane_is_dense(p.large);
  parallel_for(0, planes, pool_grain(svol + lvol), [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(kWiden && !p.assign ? static_cast<size_t>(lvol) : 0);
    for (int64_t plane = begin; plane < end; ++plane) {
      T* sp = small + plane_offset(p.small, plane, p.channels);
      const int64_t* ip = p.indices + plane_offset(p.small, plane, p.channels);
      T* lp = large + plane_offset(p.large, plane, p.channels);
      if constexpr (kScatter) {
        if (!acc.empty()) std::fill(acc.begin(), acc.end(), Acc(0));
        zero_plane(lp, p.large);
      }
      for (int64_t k = 0; k < svol; ++k) {
        // Dense planes (the usual case) need no position split: three divisions per element
        // were most of this loop's time.
        int64_t so = k;
        if (!small_dense) {
          const PoolPos s = split_pos(p.small, k);
          so = offset_of(p.small, s.d, s.h, s.w);
        }
        const int64_t idx = ip[so];
        if (idx < 0 || idx >= lvol) {
          invalid.report(idx);
          continue;
        }
        int64_t lo = idx;
        if (!large_dense) {
          const PoolPos l = split_pos(p.large, idx);
          lo = offset_of(p.large, l.d, l.h, l.w);
        }
        T& target = lp[lo];
        if constexpr (kScatter) {
          if (p.assign)
            target = sp[so];
          else if (!acc.empty())
            acc[static_cast<size_t>(idx)] += static_cast<Acc>(sp[so]);
          else
            target = static_cast<T>(static_cast<Acc>(target) + static_cast<Acc>(sp[so]));
        } else {
          sp[so] = target;
        }
      }
      if (!acc.empty()) {
        for (int64_t i = 0; i < lvol; ++i) {
          const PoolPos l = split_pos(p.large, i);
          lp[offset_of(p.large, l.d, l.h, l.w)] = static_cast<T>(acc[static_cast<size_t>(i)]);
        }
      }
    }
  });
  if (invalid.seen.load()) {
    if (p.invalid_index) *p.invalid_index = invalid.value;
    if (p.has_invalid_index) *p.has_invalid_index = true;
  }
}

template <class T>
struct MaxPoolRun {
  static void run(const PoolParams& p) { max_pool_impl<T>(p); }
};
template <class T>
struct AvgPoolRun {
  static void run(const PoolParams& p) { avg_pool_impl<T>(p); }
};
template <class T>
struct AvgPoolBackwardRun {
  static void run(const PoolParams& p) { avg_pool_backward_impl<T>(p); }
};
template <class T>
struct ScatterRun {
  static void run(const PoolIndexParams& p) { pool_index_impl<T, true>(p); }
};
template <class T>
struct GatherRun {
  static void run(const PoolIndexParams& p) { pool_index_impl<T, false>(p); }
};

}  // namespace

void cpu_max_pool(ScalarType dtype, const PoolParams& p) { visit_pool_float<MaxPoolRun>(dtype, p); }
void cpu_avg_pool(ScalarType dtype, const PoolParams& p) {
  if (onednn_avg_pool(dtype, p, /*backward=*/false)) return;
  visit_pool_float<AvgPoolRun>(dtype, p);
}
void cpu_avg_pool_backward(ScalarType dtype, const PoolParams& p) {
  if (onednn_avg_pool(dtype, p, /*backward=*/true)) return;
  visit_pool_float<AvgPoolBackwardRun>(dtype, p);
}
void cpu_pool_scatter(ScalarType dtype, const PoolIndexParams& p) {
  visit_pool_float<ScatterRun>(dtype, p);
}
void cpu_pool_gather(ScalarType dtype, const PoolIndexParams& p) {
  visit_pool_float<GatherRun>(dtype, p);
}

}  // namespace ember::kernels
