// The taps of one dim of an interpolation, built on the host: for each output index, the input
// indices it reads and their weights. Every mode of F::interpolate is separable, so an output
// element is the product of one tap per dim summed over all tap combinations; the kernels of both
// directions walk these tables (the backward scatter-adds along the same taps).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/common/resample_math.h"
#include "kernels/common/resample_params.h"

namespace ember::resample {

/// Output index o reads idx[k] with weight w[k] for k in [start[o], start[o + 1]).
template <class A>
struct Taps {
  std::vector<int64_t> start{0};
  std::vector<int64_t> idx;
  std::vector<A> w;
  void add(int64_t i, A weight) {
    idx.push_back(i);
    w.push_back(weight);
  }
  void close() { start.push_back(static_cast<int64_t>(idx.size())); }
  int64_t max_taps() const {
    int64_t m = 0;
    for (size_t o = 1; o < start.size(); ++o) m = std::max(m, start[o] - start[o - 1]);
    return m;
  }
};

/// The antialiasing filters of PyTorch's _upsample_*_aa kernels: the triangle (bilinear) and
/// Keys' cubic with a = -0.5 (bicubic), stretched by the downscale factor and normalised.
template <class A>
A antialias_filter(A x, bool cubic) {
  x = std::abs(x);
  if (!cubic) return x < 1 ? 1 - x : A(0);
  const A a = A(-0.5);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
  return 0;
}

/// The taps of spatial dim d of p (sizes, scale and mode from the params).
template <class A>
Taps<A> make_taps(const UpsampleParams& p, int d) {
  using Mode = UpsampleParams::Mode;
  const int64_t in = p.in_size[d], out = p.out_size[d];
  const double user_scale = p.scales[d];
  Taps<A> t;
  t.idx.reserve(static_cast<size_t>(out) * 2);
  t.w.reserve(static_cast<size_t>(out) * 2);
  if (p.mode == Mode::Nearest || p.mode == Mode::NearestExact) {
    for (int64_t o = 0; o < out; ++o) {
      t.add(nearest_index(o, in, out, user_scale, p.mode == Mode::NearestExact), A(1));
      t.close();
    }
  } else if (p.mode == Mode::Area) {
    // Adaptive average pooling: output o averages [floor(o·in/out), ceil((o+1)·in/out)).
    for (int64_t o = 0; o < out; ++o) {
      const int64_t b = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
      for (int64_t i = b; i < e; ++i) t.add(i, A(1) / static_cast<A>(e - b));
      t.close();
    }
  } else if (p.antialias) {
    const bool cubic = p.mode == Mode::Cubic;
    const A scale = pixel_scale<A>(in, out, p.align_corners, user_scale);
    const A support = (scale >= 1 ? scale : A(1)) * (cubic ? A(2) : A(1));
    const A inv = scale >= 1 ? A(1) / scale : A(1);
    std::vector<A> w;
    for (int64_t o = 0; o < out; ++o) {
      const A center = scale * (static_cast<A>(o) + A(0.5));
      const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + A(0.5)), 0);
      const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + A(0.5)), in);
      w.clear();
      A total = 0;
      for (int64_t i = lo; i < hi; ++i) {
        w.push_back(antialias_filter<A>((static_cast<A>(i) - center + A(0.5)) * inv, cubic));
        total += w.back();
      }
      for (int64_t i = lo; i < hi; ++i) t.add(i, total != 0 ? w[i - lo] / total : w[i - lo]);
      t.close();
    }
  } else if (p.mode == Mode::Linear) {
    const A scale = pixel_scale<A>(in, out, p.align_corners, user_scale);
    for (int64_t o = 0; o < out; ++o) {
      const A src = source_position<A>(scale, o, p.align_corners, /*cubic=*/false);
      const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
      const A l1 = std::min(std::max(src - static_cast<A>(i0), A(0)), A(1));
      t.add(i0, 1 - l1);
      t.add(i0 < in - 1 ? i0 + 1 : i0, l1);
      t.close();
    }
  } else {  // Cubic: four taps at floor(src) - 1 .. + 2, clamped to the input.
    const A scale = pixel_scale<A>(in, out, p.align_corners, user_scale);
    A w[4];
    for (int64_t o = 0; o < out; ++o) {
      const A src = source_position<A>(scale, o, p.align_corners, /*cubic=*/true);
      const int64_t i0 = static_cast<int64_t>(std::floor(src));
      cubic_weights<A>(src - static_cast<A>(i0), A(-0.75), w);
      for (int k = 0; k < 4; ++k) t.add(std::clamp<int64_t>(i0 - 1 + k, 0, in - 1), w[k]);
      t.close();
    }
  }
  return t;
}

}  // namespace ember::resample
