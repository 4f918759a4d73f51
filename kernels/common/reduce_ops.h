// The math of each reduction, once, as accumulator functors the CPU (and later CUDA) loops drive.
// A functor over input type T provides:
//   acc_t                       the accumulator
//   kLanes                      a contiguous run may be split over independent lanes (the op is
//                               associative and commutative enough: sums, products, min/max)
//   kMoments                    var/std: the loop reduces contiguous blocks with two passes
//   identity()                  the empty reduction
//   reduce(acc, x, idx)         folds in element x at reduced index idx (only argmax reads idx)
//   combine(a, b)               merges two partial results, a covering the earlier indices
//   project(acc, out, off)      writes the result(s) of one output element at element offset off
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/core/half.h"
#include "kernels/common/reduce_loop.h"
#include "kernels/common/visit.h"
#include "kernels/common/wrapping.h"

namespace ember::kernels {

template <class A>
EMBER_HOST_DEVICE inline bool red_isnan(A x) {
  if constexpr (std::is_floating_point_v<A>)
    return x != x;
  else
    return false;
}

/// max/min where NaN wins (PyTorch's propagation rule for max, amax, argmax, ...).
template <class A>
EMBER_HOST_DEVICE inline A max_propagate_nan(A a, A b) {
  if constexpr (std::is_floating_point_v<A>)
    return (a > b || a != a) ? a : b;
  else
    return a > b ? a : b;
}
template <class A>
EMBER_HOST_DEVICE inline A min_propagate_nan(A a, A b) {
  if constexpr (std::is_floating_point_v<A>)
    return (a < b || a != a) ? a : b;
  else
    return a < b ? a : b;
}

/// Accumulator of sum/prod/cumsum: int64 for integers and bool, float for 16-bit floats, else T.
template <class T>
using sum_acc_t = std::conditional_t<is_float_type_v<T>, opmath_t<T>, int64_t>;

template <class Out, class V>
EMBER_HOST_DEVICE inline void store(char* base, int64_t off, V v) {
  reinterpret_cast<Out*>(base)[off] = static_cast<Out>(v);
}

// ---- sum / prod: the result is written as Out (the accumulator type, or T itself) ----
template <class T, class Out>
struct SumReduce {
  using acc_t = sum_acc_t<T>;
  static constexpr bool kLanes = true, kMoments = false;
  EMBER_HOST_DEVICE acc_t identity() const { return acc_t(0); }
  EMBER_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t) const {
    return wrapping_add(a, static_cast<acc_t>(x));
  }
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return wrapping_add(a, b); }
  EMBER_HOST_DEVICE void project(acc_t a, char* const* out, int64_t off) const {
    store<Out>(out[0], off, a);
  }
};

template <class T, class Out>
struct ProdReduce {
  using acc_t = sum_acc_t<T>;
  static constexpr bool kLanes = true, kMoments = false;
  EMBER_HOST_DEVICE acc_t identity() const { return acc_t(1); }
  EMBER_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t) const {
    return wrapping_mul(a, static_cast<acc_t>(x));
  }
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return wrapping_mul(a, b); }
  EMBER_HOST_DEVICE void project(acc_t a, char* const* out, int64_t off) const {
    store<Out>(out[0], off, a);
  }
};

// ---- amax / amin (NaN wins); the result keeps the input dtype ----
template <class T, bool kMax>
struct MinMaxReduce {
  using acc_t = opmath_t<T>;
  static constexpr bool kLanes = true, kMoments = false;
  EMBER_HOST_DEVICE acc_t identity() const {
    if constexpr (std::is_same_v<acc_t, bool>)
      return !kMax;
    else if constexpr (std::numeric_limits<acc_t>::has_infinity)
      return kMax ? -std::numeric_limits<acc_t>::infinity()
                  : std::numeric_limits<acc_t>::infinity();
    else
      return kMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  EMBER_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t) const {
    return combine(a, static_cast<acc_t>(x));
  }
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    return kMax ? max_propagate_nan(a, b) : min_propagate_nan(a, b);
  }
  EMBER_HOST_DEVICE void project(acc_t a, char* const* out, int64_t off) const {
    store<T>(out[0], off, a);
  }
};

// ---- argmax / argmin, and max/min with a dim: the first extreme index, a NaN beating all ----
template <class T, bool kMax>
struct ArgReduce {
  using M = opmath_t<T>;
  struct acc_t {
    M v;
    int64_t i;  // -1: nothing seen yet
  };
  static constexpr bool kLanes = false, kMoments = false;
  EMBER_HOST_DEVICE static bool better(M v, M cur) {
    if (red_isnan(v)) return !red_isnan(cur);
    return kMax ? v > cur : v < cur;
  }
  EMBER_HOST_DEVICE acc_t identity() const { return {M(0), -1}; }
  EMBER_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t idx) const {
    M v = static_cast<M>(x);
    return (a.i < 0 || better(v, a.v)) ? acc_t{v, idx} : a;
  }
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    return better(b.v, a.v) ? b : a;  // a tie keeps a, the earlier index
  }
  EMBER_HOST_DEVICE void project(acc_t a, char* const* out, int64_t off) const {
    if (out[0]) store<T>(out[0], off, a.v);
    store<int64_t>(out[1], off, a.i);
  }
};

// ---- all / any: nonzero test (NaN is nonzero); the result is bool, or uint8 for uint8 input ----
template <class T, class Out, bool kAll>
struct LogicalReduce {
  using acc_t = bool;
  static constexpr bool kLanes = true, kMoments = false;
  EMBER_HOST_DEVICE acc_t identity() const { return kAll; }
  EMBER_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t) const {
    const bool nz = static_cast<opmath_t<T>>(x) != opmath_t<T>(0);
    return kAll ? (a & nz) : (a | nz);  // bitwise: no branch, so the lanes vectorise
  }
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return kAll ? (a & b) : (a | b); }
  EMBER_HOST_DEVICE void project(acc_t a, char* const* out, int64_t off) const {
    store<Out>(out[0], off, a);
  }
};

// ---- vector norms; the result keeps the (floating) input dtype ----
enum class NormKind { Two, One, Inf, NegInf, Zero, General };

template <class T, NormKind kKind>
struct NormReduce {
  using acc_t = opmath_t<T>;
  static constexpr bool kLanes = true, kMoments = false;
  acc_t p = 2;
  EMBER_HOST_DEVICE acc_t identity() const {
    return kKind == NormKind::NegInf ? std::numeric_limits<acc_t>::infinity() : acc_t(0);
  }
  EMBER_HOST_DEVICE acc_t reduce(acc_t a, T in, int64_t) const {
    acc_t x = static_cast<acc_t>(in);
    if constexpr (kKind == NormKind::Two)
      return a + x * x;
    else if constexpr (kKind == NormKind::One)
      return a + std::abs(x);
    else if constexpr (kKind == NormKind::Inf)
      return max_propagate_nan(a, std::abs(x));
    else if constexpr (kKind == NormKind::NegInf)
      return min_propagate_nan(a, std::abs(x));
    else if constexpr (kKind == NormKind::Zero)
      return a + acc_t(x != acc_t(0));
    else
      return a + std::pow(std::abs(x), p);
  }
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if constexpr (kKind == NormKind::Inf)
      return max_propagate_nan(a, b);
    else if constexpr (kKind == NormKind::NegInf)
      return min_propagate_nan(a, b);
    else
      return a + b;
  }
  EMBER_HOST_DEVICE void project(acc_t a, char* const* out, int64_t off) const {
    if constexpr (kKind == NormKind::Two)
      a = std::sqrt(a);
    else if constexpr (kKind == NormKind::General)
      a = std::pow(a, acc_t(1) / p);
    store<T>(out[0], off, a);
  }
};

// ---- var / std (and the mean for var_mean): Welford/Chan moments in double ----
struct Moments {
  double mean;
  double m2;  // sum of squared deviations from mean
  int64_t n;
};

EMBER_HOST_DEVICE inline Moments combine_moments(Moments a, Moments b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  const int64_t n = a.n + b.n;
  const double nb_over_n = double(b.n) / double(n);
  const double delta = b.mean - a.mean;
  return {a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * double(a.n) * nb_over_n, n};
}

template <class T>
struct MomentsReduce {
  using acc_t = Moments;
  static constexpr bool kLanes = false, kMoments = true;
  double correction = 1;
  bool take_sqrt = false;
  EMBER_HOST_DEVICE acc_t identity() const { return {0, 0, 0}; }
  EMBER_HOST_DEVICE acc_t reduce(acc_t a, T in, int64_t) const {
    const double x = static_cast<double>(static_cast<opmath_t<T>>(in));
    const int64_t n = a.n + 1;
    const double delta = x - a.mean;
    const double mean = a.mean + delta / double(n);
    return {mean, a.m2 + delta * (x - mean), n};
  }
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return combine_moments(a, b); }
  EMBER_HOST_DEVICE void project(acc_t a, char* const* out, int64_t off) const {
    // PyTorch: divisor max(0, N - correction); m2 / 0 is inf (or nan when m2 is 0 too).
    const double divisor = double(a.n) > correction ? double(a.n) - correction : 0.0;
    double v = a.m2 / divisor;
    if (take_sqrt) v = std::sqrt(v);
    store<T>(out[0], off, v);
    if (out[1]) store<T>(out[1], off, a.n == 0 ? std::numeric_limits<double>::quiet_NaN() : a.mean);
  }
};

}  // namespace ember::kernels
