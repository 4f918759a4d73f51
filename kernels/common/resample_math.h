// The coordinate math of the resample family, written once for every backend: how an output
// index maps to input indices and weights (F::interpolate) and how a grid coordinate becomes a
// source position (F::grid_sample). The formulas and their rounding follow PyTorch's CPU kernels
// (ATen's UpSample.h / GridSampler.h): A is the accumulation type (float for float32, bfloat16
// and float16; double for float64), and the legacy nearest modes compute their scale in float for
// every dtype, as PyTorch does.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include "ember/core/macros.h"
#include "kernels/common/resample_params.h"

namespace ember::resample {

/// Keys' cubic convolution weights for fraction t in [0, 1) (taps at -1, 0, 1, 2) and, when
/// `dw` is given, their derivatives by t.
template <class A>
EMBER_HOST_DEVICE inline void cubic_weights(A t, A a, A* w, A* dw = nullptr) {
  auto c1 = [a](A x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };        // |x| <= 1
  auto c2 = [a](A x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
  w[0] = c2(t + 1);
  w[1] = c1(t);
  w[2] = c1(1 - t);
  w[3] = c2(2 - t);
  if (dw) {
    auto d1 = [a](A x) { return 3 * (a + 2) * x * x - 2 * (a + 3) * x; };
    auto d2 = [a](A x) { return 3 * a * x * x - 10 * a * x + 8 * a; };
    dw[0] = d2(t + 1);
    dw[1] = d1(t);
    dw[2] = -d1(1 - t);
    dw[3] = -d2(2 - t);
  }
}

/// input / output per dim: 1/scale when the user gave a scale factor, else in/out.
template <class A>
EMBER_HOST_DEVICE inline A scale_of(double user_scale, int64_t in, int64_t out) {
  return user_scale > 0 ? static_cast<A>(1.0 / user_scale)
                        : static_cast<A>(in) / static_cast<A>(out);
}

/// The step between source positions of neighbouring outputs (area_pixel_compute_scale).
template <class A>
EMBER_HOST_DEVICE inline A pixel_scale(int64_t in, int64_t out, bool align_corners,
                                       double user_scale) {
  if (align_corners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  return scale_of<A>(user_scale, in, out);
}

/// The source position of output index `dst` (area_pixel_compute_source_index): pixel centres
/// are aligned unless align_corners; linear modes clamp negative positions to 0, cubic does not.
template <class A>
EMBER_HOST_DEVICE inline A source_position(A scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<A>(dst);
  const A src = scale * (static_cast<A>(dst) + A(0.5)) - A(0.5);
  return (!cubic && src < 0) ? A(0) : src;
}

/// The input index of output `dst` for mode Nearest (exact = false) or NearestExact.
EMBER_HOST_DEVICE inline int64_t nearest_index(int64_t dst, int64_t in, int64_t out,
                                               double user_scale, bool exact) {
  if (!exact) {
    if (out == in) return dst;
    if (out == 2 * in) return dst >> 1;
  }
  const float s = scale_of<float>(user_scale, in, out);
  const float pos = exact ? (static_cast<float>(dst) + 0.5f) * s : static_cast<float>(dst) * s;
  return std::min(static_cast<int64_t>(std::floor(pos)), in - 1);
}

// ---- grid_sample ----

/// A grid coordinate in [-1, 1] to a position in input pixels; *scale = d(position)/d(coord).
template <class A>
EMBER_HOST_DEVICE inline A grid_unnormalize(A coord, int64_t size, bool align_corners, A* scale) {
  if (align_corners) {
    *scale = static_cast<A>(size - 1) / 2;
    return (coord + 1) / 2 * static_cast<A>(size - 1);
  }
  *scale = static_cast<A>(size) / 2;
  return ((coord + 1) * static_cast<A>(size) - 1) / 2;
}

/// Clamps to [0, limit - 1]; *grad = 1 inside, 0 where clamped.
template <class A>
EMBER_HOST_DEVICE inline A grid_clip(A x, int64_t limit, A* grad) {
  if (x <= 0) {
    *grad = 0;
    return 0;
  }
  const A hi = static_cast<A>(limit - 1);
  if (x >= hi) {
    *grad = 0;
    return hi;
  }
  *grad = 1;
  return x;
}

/// Reflects x into [twice_low/2, twice_high/2] (bounds doubled so half-pixel borders stay
/// integers); *grad = ±1 as the reflection flips.
template <class A>
EMBER_HOST_DEVICE inline A grid_reflect(A x, int64_t twice_low, int64_t twice_high, A* grad) {
  if (twice_low == twice_high) {
    *grad = 0;
    return 0;
  }
  const A lo = static_cast<A>(twice_low) / 2;
  const A span = static_cast<A>(twice_high - twice_low) / 2;
  A sign = 1;
  if (x < lo) {
    sign = -1;
    x = lo - x;
  } else {
    x = x - lo;
  }
  const A extra = std::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(std::floor(x / span));
  if (flips % 2 == 0) {
    *grad = sign;
    return extra + lo;
  }
  *grad = -sign;
  return span - extra + lo;
}

/// Applies the padding mode to a position (border: clamp; reflection: reflect then clamp);
/// *grad = d(result)/d(x). Non-finite or huge positions become -100 (out of bounds), as PyTorch
/// does, so that the later integer conversion is defined.
template <class A>
EMBER_HOST_DEVICE inline A grid_pad(A x, int64_t size, GridSampleParams::Padding padding,
                                    bool align_corners, A* grad) {
  *grad = 1;
  if (padding == GridSampleParams::Padding::Border) {
    x = grid_clip(x, size, grad);
  } else if (padding == GridSampleParams::Padding::Reflection) {
    A g_reflect, g_clip;
    x = align_corners ? grid_reflect(x, 0, 2 * (size - 1), &g_reflect)
                      : grid_reflect(x, -1, 2 * size - 1, &g_reflect);
    x = grid_clip(x, size, &g_clip);
    *grad = g_reflect * g_clip;
  }
  if (!(x > static_cast<A>(INT_MIN) && x < static_cast<A>(INT_MAX - 1))) x = A(-100);
  return x;
}

}  // namespace ember::resample
