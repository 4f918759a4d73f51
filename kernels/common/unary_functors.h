// The math of each unary row of op_table.h, once, for CPU and CUDA. `supports<T>` says which
// input dtypes the kernel is instantiated for; 16-bit floats compute in float (opmath_t).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/core/half.h"
#include "kernels/common/elementwise_loop.h"
#include "kernels/common/visit.h"
#include "kernels/common/wrapping.h"

namespace ember::kernels {

template <class T>
struct IsFloat : std::bool_constant<is_float_type_v<T>> {};
template <class T>
struct IsNotBool : std::bool_constant<!std::is_same_v<T, bool>> {};
template <class T>
struct IsIntOrBool : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct IsAny : std::true_type {};

// A float-only unary op: computes `expr` on x of type M (float for 16-bit inputs).
// kNarrowIsFloatRounded: op(x) for a float16/bfloat16 x is exactly T(op(float(x))), so the CPU
// loop may widen a block, run the float form (which vectorises) and round back.
#define EMBER_FLOAT_UNARY(Name, expr)                   \
  struct Name##Op {                                     \
    static constexpr bool kNarrowIsFloatRounded = true; \
    template <class T>                                  \
    using Supports = IsFloat<T>;                        \
    explicit Name##Op(const OpScalars& = {}) {}         \
    template <class T>                                  \
    EMBER_HOST_DEVICE T operator()(T in) const {        \
      using M = opmath_t<T>;                            \
      M x = static_cast<M>(in);                         \
      return static_cast<T>(expr);                      \
    }                                                   \
  };

EMBER_FLOAT_UNARY(Exp, std::exp(x))
EMBER_FLOAT_UNARY(Exp2, std::exp2(x))
EMBER_FLOAT_UNARY(Expm1, std::expm1(x))
EMBER_FLOAT_UNARY(Log, std::log(x))
EMBER_FLOAT_UNARY(Log1p, std::log1p(x))
EMBER_FLOAT_UNARY(Log2, std::log2(x))
EMBER_FLOAT_UNARY(Log10, std::log10(x))
EMBER_FLOAT_UNARY(Sqrt, std::sqrt(x))
EMBER_FLOAT_UNARY(Rsqrt, M(1) / std::sqrt(x))
EMBER_FLOAT_UNARY(Sin, std::sin(x))
EMBER_FLOAT_UNARY(Cos, std::cos(x))
EMBER_FLOAT_UNARY(Tan, std::tan(x))
EMBER_FLOAT_UNARY(Asin, std::asin(x))
EMBER_FLOAT_UNARY(Acos, std::acos(x))
EMBER_FLOAT_UNARY(Atan, std::atan(x))
EMBER_FLOAT_UNARY(Sinh, std::sinh(x))
EMBER_FLOAT_UNARY(Cosh, std::cosh(x))
EMBER_FLOAT_UNARY(Tanh, std::tanh(x))
EMBER_FLOAT_UNARY(Sigmoid, M(1) / (M(1) + std::exp(-x)))
EMBER_FLOAT_UNARY(Erf, std::erf(x))
EMBER_FLOAT_UNARY(Erfc, std::erfc(x))
EMBER_FLOAT_UNARY(Reciprocal, M(1) / x)
EMBER_FLOAT_UNARY(Frac, x - std::trunc(x))
EMBER_FLOAT_UNARY(Silu, x / (M(1) + std::exp(-x)))
EMBER_FLOAT_UNARY(Mish, x* std::tanh(std::log1p(std::exp(x))))
// gelu, exact: 0.5·x·(1 + erf(x/√2)); tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
EMBER_FLOAT_UNARY(Gelu, M(0.5) * x * (M(1) + std::erf(x * M(0.70710678118654752440))))
EMBER_FLOAT_UNARY(GeluTanh,
                  M(0.5) * x *
                      (M(1) + std::tanh(M(0.79788456080286535588) * (x + M(0.044715) * x * x * x))))
#undef EMBER_FLOAT_UNARY

// Ops that keep the input dtype and work on integers too. Floats compute in opmath.
#define EMBER_SAME_UNARY(Name, Pred, int_expr, float_expr) \
  struct Name##Op {                                        \
    static constexpr bool kNarrowIsFloatRounded = true;    \
    template <class T>                                     \
    using Supports = Pred<T>;                              \
    explicit Name##Op(const OpScalars& = {}) {}            \
    template <class T>                                     \
    EMBER_HOST_DEVICE T operator()(T in) const {           \
      if constexpr (is_float_type_v<T>) {                  \
        using M = opmath_t<T>;                             \
        M x = static_cast<M>(in);                          \
        return static_cast<T>(float_expr);                 \
      } else {                                             \
        T x = in;                                          \
        return static_cast<T>(int_expr);                   \
      }                                                    \
    }                                                      \
  };

EMBER_SAME_UNARY(Neg, IsNotBool, wrapping_neg(x), -x)
EMBER_SAME_UNARY(Abs, IsNotBool, (std::is_signed_v<T> && x < 0) ? wrapping_neg(x) : x, std::fabs(x))
EMBER_SAME_UNARY(Sign, IsAny, (T(0) < x) - (std::is_signed_v<T> && x < T(0)),
                 (M(0) < x) - (x < M(0)))
EMBER_SAME_UNARY(Square, IsAny, wrapping_mul(x, x), x* x)
EMBER_SAME_UNARY(Relu, IsNotBool, x < T(0) ? T(0) : x, x < M(0) ? M(0) : x)
EMBER_SAME_UNARY(Floor, IsNotBool, x, std::floor(x))
EMBER_SAME_UNARY(Ceil, IsNotBool, x, std::ceil(x))
EMBER_SAME_UNARY(Trunc, IsNotBool, x, std::trunc(x))
// Round half to even, as PyTorch (nearbyint under the default rounding mode).
EMBER_SAME_UNARY(Round, IsNotBool, x, std::nearbyint(x))
#undef EMBER_SAME_UNARY

/// ~x on integers; logical not on bool (as PyTorch).
struct BitwiseNotOp {
  template <class T>
  using Supports = IsIntOrBool<T>;
  explicit BitwiseNotOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return !x;
    else
      return static_cast<T>(~x);
  }
};

/// round(x, decimals) for floats; s[0] = decimals.
struct RoundDecimalsOp {
  template <class T>
  using Supports = IsFloat<T>;
  double ten_pow;
  bool negative;
  explicit RoundDecimalsOp(const OpScalars& p)
      : ten_pow(std::pow(10.0, std::fabs(p.s[0]))), negative(p.s[0] < 0) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T in) const {
    using M = opmath_t<T>;
    M x = static_cast<M>(in), t = static_cast<M>(ten_pow);
    return static_cast<T>(negative ? std::nearbyint(x / t) * t : std::nearbyint(x * t) / t);
  }
};

// Predicates: any dtype in, bool out.
struct LogicalNotOp {
  template <class T>
  using Supports = IsAny<T>;
  explicit LogicalNotOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    return !(static_cast<opmath_t<T>>(x) != opmath_t<T>(0));
  }
};
struct IsNanOp {
  template <class T>
  using Supports = IsAny<T>;
  explicit IsNanOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_float_type_v<T>)
      return std::isnan(static_cast<opmath_t<T>>(x));
    else
      return false;
  }
};
struct IsInfOp {
  template <class T>
  using Supports = IsAny<T>;
  explicit IsInfOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_float_type_v<T>)
      return std::isinf(static_cast<opmath_t<T>>(x));
    else
      return false;
  }
};
struct IsFiniteOp {
  template <class T>
  using Supports = IsAny<T>;
  explicit IsFiniteOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_float_type_v<T>)
      return std::isfinite(static_cast<opmath_t<T>>(x));
    else
      return true;
  }
};

/// A clamp bound (a double) in the compute type M. Integral bounds convert through int64 so that
/// -1 for uint8 wraps to 255 as PyTorch's Scalar conversion does; a double cast straight to an
/// unsigned type is undefined for negative values (x86 wraps, CUDA saturates to 0).
template <class M>
EMBER_HOST_DEVICE M clamp_bound(double v) {
  if constexpr (std::is_integral_v<M>)
    return static_cast<M>(static_cast<int64_t>(v));
  else
    return static_cast<M>(v);
}

/// clamp(x, min, max); s[0] = min, s[1] = max. NaN inputs stay NaN.
struct ClampOp {
  template <class T>
  using Supports = IsNotBool<T>;
  double lo, hi;
  explicit ClampOp(const OpScalars& p) : lo(p.s[0]), hi(p.s[1]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T in) const {
    using M = opmath_t<T>;
    M x = static_cast<M>(in), l = clamp_bound<M>(lo), h = clamp_bound<M>(hi);
    x = x < l ? l : x;
    return static_cast<T>(x > h ? h : x);
  }
};
struct ClampMinOp {
  template <class T>
  using Supports = IsNotBool<T>;
  double lo;
  explicit ClampMinOp(const OpScalars& p) : lo(p.s[0]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T in) const {
    using M = opmath_t<T>;
    M x = static_cast<M>(in), l = clamp_bound<M>(lo);
    return static_cast<T>(x < l ? l : x);
  }
};
struct ClampMaxOp {
  template <class T>
  using Supports = IsNotBool<T>;
  double hi;
  explicit ClampMaxOp(const OpScalars& p) : hi(p.s[0]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T in) const {
    using M = opmath_t<T>;
    M x = static_cast<M>(in), h = clamp_bound<M>(hi);
    return static_cast<T>(x > h ? h : x);
  }
};

/// logit with optional eps clamp; s[0] = eps, s[1] = 1 when eps is given.
struct LogitOp {
  template <class T>
  using Supports = IsFloat<T>;
  double eps;
  bool has_eps;
  explicit LogitOp(const OpScalars& p) : eps(p.s[0]), has_eps(p.s[1] != 0) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T in) const {
    using M = opmath_t<T>;
    M x = static_cast<M>(in);
    if (has_eps) {
      // PyTorch (1.13, CPU) clamps bfloat16 in bfloat16, so 1 - 1e-6 rounds to 1 and logit(1) is
      // inf; float16 has no CPU kernel there and our reference is the float computation.
      M lo = static_cast<M>(eps), hi = M(1) - static_cast<M>(eps);
      if constexpr (std::is_same_v<T, BFloat16>) {
        lo = static_cast<M>(static_cast<T>(lo));
        hi = static_cast<M>(static_cast<T>(1.0 - eps));
      }
      x = x < lo ? lo : (x > hi ? hi : x);
    }
    return static_cast<T>(std::log(x / (M(1) - x)));
  }
};

/// nan_to_num; s[0..2] = replacement for NaN, +inf, -inf (already resolved per dtype).
struct NanToNumOp {
  template <class T>
  using Supports = IsAny<T>;
  double nan, posinf, neginf;
  explicit NanToNumOp(const OpScalars& p) : nan(p.s[0]), posinf(p.s[1]), neginf(p.s[2]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T in) const {
    if constexpr (is_float_type_v<T>) {
      using M = opmath_t<T>;
      M x = static_cast<M>(in);
      if (std::isnan(x)) return static_cast<T>(static_cast<M>(nan));
      if (std::isinf(x)) return static_cast<T>(static_cast<M>(x > 0 ? posinf : neginf));
      return in;
    } else {
      return in;
    }
  }
};

/// Converts between dtypes (bool is x != 0, as PyTorch).
template <class To>
struct CastTo {
  template <class From>
  EMBER_HOST_DEVICE To operator()(From x) const {
    if constexpr (std::is_same_v<To, bool>) {
      return static_cast<opmath_t<From>>(x) != opmath_t<From>(0);
    } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
      return To(static_cast<float>(x));
    } else {
      return static_cast<To>(static_cast<opmath_t<From>>(x));
    }
  }
};

}  // namespace ember::kernels
