// The math of each binary (and ternary) elementwise row, once, for CPU and CUDA.
// Inputs arrive in the compute dtype T; 16-bit floats compute in float (opmath_t).
#pragma once

#include "kernels/common/unary_functors.h"

namespace ember::kernels {

template <class T>
struct IsNotBoolOrFloatOnly : std::bool_constant<!std::is_same_v<T, bool>> {};

// _(Name, Supports, result expression on a, b of type M)
#define EMBER_BINARY(Name, Pred, expr)                  \
  struct Name##Op {                                     \
    template <class T>                                  \
    using Supports = Pred<T>;                           \
    explicit Name##Op(const OpScalars& = {}) {}         \
    template <class T>                                  \
    EMBER_HOST_DEVICE T operator()(T ia, T ib) const {  \
      using M = opmath_t<T>;                            \
      M a = static_cast<M>(ia), b = static_cast<M>(ib); \
      return static_cast<T>(expr);                      \
    }                                                   \
  };

EMBER_BINARY(Mul, IsAny, wrapping_mul(a, b))
EMBER_BINARY(Atan2, IsFloat, std::atan2(a, b))
#undef EMBER_BINARY

template <class M>
EMBER_HOST_DEVICE bool is_nan_value(M x) {
  if constexpr (std::is_floating_point_v<M>)
    return x != x;
  else
    return false;
}

struct MaximumOp {
  template <class T>
  using Supports = IsAny<T>;
  explicit MaximumOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    using M = opmath_t<T>;
    M a = static_cast<M>(ia), b = static_cast<M>(ib);
    if (is_nan_value(a) || is_nan_value(b)) return static_cast<T>(is_nan_value(a) ? a : b);
    return static_cast<T>(a > b ? a : b);
  }
};
struct MinimumOp {
  template <class T>
  using Supports = IsAny<T>;
  explicit MinimumOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    using M = opmath_t<T>;
    M a = static_cast<M>(ia), b = static_cast<M>(ib);
    if (is_nan_value(a) || is_nan_value(b)) return static_cast<T>(is_nan_value(a) ? a : b);
    return static_cast<T>(a < b ? a : b);
  }
};

/// C-style remainder (sign of the dividend). Integer division by zero is rejected by the op
/// layer before the kernel runs; the guard here only keeps the kernel from trapping.
// Integer a / b and a % b, defined for every pair: b == 0 gives 0 (Ember's integer division by
// zero), and the one pair whose quotient overflows, the type's minimum over -1, gives the minimum
// back (two's complement wrap-around, as NumPy) and remainder 0, where the CPU's division would
// trap (SIGFPE).
template <class T>
EMBER_HOST_DEVICE T int_quotient(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (b == T(-1)) return static_cast<T>(U(0) - static_cast<U>(a));
  }
  return static_cast<T>(a / b);
}
template <class T>
EMBER_HOST_DEVICE T int_remainder(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}

struct FmodOp {
  template <class T>
  using Supports = IsNotBool<T>;
  explicit FmodOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    if constexpr (is_float_type_v<T>) {
      using M = opmath_t<T>;
      return static_cast<T>(std::fmod(static_cast<M>(ia), static_cast<M>(ib)));
    } else {
      return int_remainder(ia, ib);
    }
  }
};
/// Python-style remainder (sign of the divisor).
struct RemainderOp {
  template <class T>
  using Supports = IsNotBool<T>;
  explicit RemainderOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    if constexpr (is_float_type_v<T>) {
      using M = opmath_t<T>;
      M a = static_cast<M>(ia), b = static_cast<M>(ib);
      M r = std::fmod(a, b);
      if (r != M(0) && ((r < M(0)) != (b < M(0)))) r += b;
      return static_cast<T>(r);
    } else {
      T r = int_remainder(ia, ib);
      if constexpr (std::is_signed_v<T>) {
        if (r != 0 && ((r < 0) != (ib < 0))) r = static_cast<T>(r + ib);
      }
      return r;
    }
  }
};

/// Power. Integers use exact repeated squaring; a negative integer exponent gives 1/base^n
/// truncated toward zero as PyTorch does (only ±1 bases survive).
struct PowOp {
  template <class T>
  using Supports = IsNotBool<T>;
  explicit PowOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    if constexpr (is_float_type_v<T>) {
      using M = opmath_t<T>;
      return static_cast<T>(std::pow(static_cast<M>(ia), static_cast<M>(ib)));
    } else {
      T base = ia, exp = ib;
      if constexpr (std::is_signed_v<T>) {
        if (exp < 0) {
          if (base == 1) return T(1);
          if (base == -1) return (exp % 2 == 0) ? T(1) : T(-1);
          return T(0);
        }
      }
      T result = 1;
      while (exp) {
        if (exp & 1) result = wrapping_mul(result, base);
        exp = static_cast<T>(exp >> 1);
        base = wrapping_mul(base, base);
      }
      return result;
    }
  }
};

// Comparisons and logical ops: inputs in the compute dtype, bool out.
#define EMBER_PREDICATE2(Name, Pred, expr)                \
  struct Name##Op {                                       \
    template <class T>                                    \
    using Supports = Pred<T>;                             \
    explicit Name##Op(const OpScalars& = {}) {}           \
    template <class T>                                    \
    EMBER_HOST_DEVICE bool operator()(T ia, T ib) const { \
      using M = opmath_t<T>;                              \
      M a = static_cast<M>(ia), b = static_cast<M>(ib);   \
      return (expr);                                      \
    }                                                     \
  };
EMBER_PREDICATE2(Eq, IsAny, a == b)
EMBER_PREDICATE2(Ne, IsAny, a != b)
EMBER_PREDICATE2(Lt, IsAny, a < b)
EMBER_PREDICATE2(Le, IsAny, a <= b)
EMBER_PREDICATE2(Gt, IsAny, a > b)
EMBER_PREDICATE2(Ge, IsAny, a >= b)
EMBER_PREDICATE2(LogicalAnd, IsAny, (a != M(0)) && (b != M(0)))
EMBER_PREDICATE2(LogicalOr, IsAny, (a != M(0)) || (b != M(0)))
EMBER_PREDICATE2(LogicalXor, IsAny, (a != M(0)) != (b != M(0)))
#undef EMBER_PREDICATE2

#define EMBER_BITWISE(Name, op)                      \
  struct Name##Op {                                  \
    template <class T>                               \
    using Supports = IsIntOrBool<T>;                 \
    explicit Name##Op(const OpScalars& = {}) {}      \
    template <class T>                               \
    EMBER_HOST_DEVICE T operator()(T a, T b) const { \
      if constexpr (std::is_same_v<T, bool>)         \
        return (a op b) != 0;                        \
      else                                           \
        return static_cast<T>(a op b);               \
    }                                                \
  };
EMBER_BITWISE(BitwiseAnd, &)
EMBER_BITWISE(BitwiseOr, |)
EMBER_BITWISE(BitwiseXor, ^)
#undef EMBER_BITWISE

/// alpha·b in opmath. For 16-bit floats the product is rounded to T first, as PyTorch's CPU
/// kernels do (they scale `other` in the tensor's dtype), so results match bit for bit.
template <class T>
EMBER_HOST_DEVICE opmath_t<T> scaled(T b, double alpha) {
  using M = opmath_t<T>;
  M p = static_cast<M>(alpha) * static_cast<M>(b);
  if constexpr (is_reduced_float_v<T>) {
    if (alpha != 1.0) p = static_cast<M>(static_cast<T>(p));
  }
  return p;
}

/// a + alpha·b (s[0] = alpha). bool + bool is logical or, as PyTorch.
struct AddOp {
  template <class T>
  using Supports = IsAny<T>;
  double alpha;
  explicit AddOp(const OpScalars& p) : alpha(p.s[0]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      return ia || (ib && alpha != 0);
    } else if constexpr (is_float_type_v<T>) {
      return static_cast<T>(static_cast<M>(ia) + scaled<T>(ib, alpha));
    } else {
      return wrapping_add(ia, wrapping_mul(static_cast<T>(alpha), ib));
    }
  }
};
/// a - alpha·b.
struct SubOp {
  template <class T>
  using Supports = IsNotBool<T>;
  double alpha;
  explicit SubOp(const OpScalars& p) : alpha(p.s[0]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    using M = opmath_t<T>;
    if constexpr (is_float_type_v<T>) {
      return static_cast<T>(static_cast<M>(ia) - scaled<T>(ib, alpha));
    } else {
      return wrapping_sub(ia, wrapping_mul(static_cast<T>(alpha), ib));
    }
  }
};
/// True division (integers are promoted to float before they get here).
struct DivOp {
  template <class T>
  using Supports = IsFloat<T>;
  explicit DivOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    using M = opmath_t<T>;
    return static_cast<T>(static_cast<M>(a) / static_cast<M>(b));
  }
};
struct DivTruncOp {
  template <class T>
  using Supports = IsNotBool<T>;
  explicit DivTruncOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_float_type_v<T>) {
      using M = opmath_t<T>;
      return static_cast<T>(std::trunc(static_cast<M>(a) / static_cast<M>(b)));
    } else {
      return int_quotient(a, b);
    }
  }
};
/// Floor division. For floats, Python's algorithm: start from fmod so that a == b·q + r exactly,
/// then round q to the nearest integer, which is what floor(a/b) means without double rounding.
struct DivFloorOp {
  template <class T>
  using Supports = IsNotBool<T>;
  explicit DivFloorOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ia, T ib) const {
    if constexpr (is_float_type_v<T>) {
      using M = opmath_t<T>;
      M a = static_cast<M>(ia), b = static_cast<M>(ib);
      if (b == M(0)) return static_cast<T>(a / b);
      M mod = std::fmod(a, b);
      M div = (a - mod) / b;
      if (mod != M(0) && ((b < M(0)) != (mod < M(0)))) div -= M(1);
      M result;
      if (div != M(0)) {
        result = std::floor(div);
        if (div - result > M(0.5)) result += M(1);
      } else {
        result = std::copysign(M(0), a / b);
      }
      return static_cast<T>(result);
    } else {
      T q = int_quotient(ia, ib);
      if constexpr (std::is_signed_v<T>) {
        if (int_remainder(ia, ib) != 0 && ((ia < 0) != (ib < 0))) q = static_cast<T>(q - 1);
      }
      return q;
    }
  }
};

/// The gradient of threshold and relu in one pass: grad where self > threshold, else 0
/// (s[0] = threshold). A NaN self passes the gradient through, as in PyTorch.
struct ThresholdBackwardOp {
  template <class T>
  using Supports = IsNotBool<T>;
  double threshold;
  explicit ThresholdBackwardOp(const OpScalars& p) : threshold(p.s[0]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T grad, T self) const {
    using M = opmath_t<T>;
    return static_cast<M>(self) <= clamp_bound<M>(threshold) ? T(0) : grad;
  }
};

// ---- Ternary rows ----

/// clamp with tensor bounds: min(max(x, lo), hi).
struct ClampTensorOp {
  template <class T>
  using Supports = IsNotBool<T>;
  explicit ClampTensorOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T ix, T ilo, T ihi) const {
    using M = opmath_t<T>;
    M x = static_cast<M>(ix), lo = static_cast<M>(ilo), hi = static_cast<M>(ihi);
    if (is_nan_value(x)) return ix;
    x = x < lo ? lo : x;
    return static_cast<T>(x > hi ? hi : x);
  }
};
/// self + weight·(end - self), evaluated from the nearer end for accuracy (as PyTorch).
struct LerpOp {
  template <class T>
  using Supports = IsFloat<T>;
  explicit LerpOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T is, T ie, T iw) const {
    using M = opmath_t<T>;
    M s = static_cast<M>(is), e = static_cast<M>(ie), w = static_cast<M>(iw);
    M absw = w < M(0) ? -w : w;
    return static_cast<T>(absw < M(0.5) ? s + w * (e - s) : e - (e - s) * (M(1) - w));
  }
};
/// self + value·t1·t2 (s[0] = value).
struct AddcmulOp {
  template <class T>
  using Supports = IsNotBool<T>;
  double value;
  explicit AddcmulOp(const OpScalars& p) : value(p.s[0]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T s, T a, T b) const {
    using M = opmath_t<T>;
    return static_cast<T>(wrapping_add(
        static_cast<M>(s),
        wrapping_mul(wrapping_mul(static_cast<M>(value), static_cast<M>(a)), static_cast<M>(b))));
  }
};
/// self + value·t1/t2 (s[0] = value).
struct AddcdivOp {
  template <class T>
  using Supports = IsFloat<T>;
  double value;
  explicit AddcdivOp(const OpScalars& p) : value(p.s[0]) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(T s, T a, T b) const {
    using M = opmath_t<T>;
    return static_cast<T>(static_cast<M>(s) +
                          static_cast<M>(value) * static_cast<M>(a) / static_cast<M>(b));
  }
};
/// condition ? a : b; the condition operand is bool whatever T is.
struct WhereOp {
  template <class T>
  using Supports = IsAny<T>;
  explicit WhereOp(const OpScalars& = {}) {}
  template <class T>
  EMBER_HOST_DEVICE T operator()(bool c, T a, T b) const {
    return c ? a : b;
  }
};

}  // namespace ember::kernels
