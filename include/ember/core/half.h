// 16-bit floating point storage types. Arithmetic happens in float: each type converts to and from
// float, and ops compute in `opmath_t<T>` (float for both), so rounding matches PyTorch's.
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>

#include "ember/core/macros.h"

namespace ember {

namespace detail {
EMBER_HOST_DEVICE inline uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#elif defined(__GNUC__)
  return __builtin_bit_cast(uint32_t, f);  // a register move: loops over it vectorise
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
EMBER_HOST_DEVICE inline float f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#elif defined(__GNUC__)
  return __builtin_bit_cast(float, u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}
}  // namespace detail

/// IEEE 754 binary16. Conversion rounds to nearest even, keeps NaN/Inf and subnormals.
struct alignas(2) Half {
  uint16_t x = 0;
  struct from_bits_t {};
  Half() = default;
  constexpr EMBER_HOST_DEVICE Half(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HOST_DEVICE Half(float f) : x(from_float(f)) {}
  EMBER_HOST_DEVICE operator float() const { return to_float(x); }

  static EMBER_HOST_DEVICE uint16_t from_float(float f) {
    return static_cast<uint16_t>(from_float_wide(f));
  }
  static EMBER_HOST_DEVICE float to_float(uint16_t h) { return to_float_wide(h); }

  // The conversions on the bits held in a uint32_t (high half zero). A loop that rounds floats to
  // float16 and back through these never has a 16-bit value, which GCC would take as its lane
  // width and then fail to vectorise the floats ("unsupported data-type float").
  //
  // Both are branch-free (every case computed, then selected), so that a loop over them
  // vectorises: with early returns GCC kept float16 kernels scalar (an add of 2^20 elements
  // 3.2 ms against bfloat16's 0.21). Exhaustively equal to the branching forms they replaced.
  static EMBER_HOST_DEVICE uint32_t from_float_wide(float f) {
    const uint32_t u = detail::f32_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    // Normal: rebias the exponent (-112 << 23) and round to nearest even.
    const uint32_t normal = (abs + 0xc8000fffu + ((abs >> 13) & 1u)) >> 13;
    // Subnormal: add 0.5 (as float) so the FPU rounds to nearest even into the low mantissa bits.
    const uint32_t subnormal = detail::f32_bits(detail::f32_from_bits(abs) + 0.5f) - 0x3f000000u;
    uint32_t r = abs < 0x38800000u ? subnormal : normal;
    r = abs >= 0x477ff000u ? 0x7c00u : r;  // overflow and Inf
    r = abs > 0x7f800000u ? 0x7e00u : r;   // NaN
    return sign | r;
  }
  static EMBER_HOST_DEVICE float to_float_wide(uint32_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    const uint32_t normal = ((exp + 112u) << 23) | (mant << 13);
    const uint32_t inf_nan = 0x7f800000u | (mant << 13);
    // Subnormal or zero: mant * 2^-24 = (0.5 + mant * 2^-24) - 0.5, the first a float whose last
    // mantissa bits are mant. Exact, with normal operands whatever the denormal mode, and no
    // integer-to-float conversion (which kept GCC from vectorising the optimizer loops).
    const uint32_t subnormal = detail::f32_bits(detail::f32_from_bits(mant | 0x3f000000u) - 0.5f);
    uint32_t mag = exp == 0 ? subnormal : normal;
    mag = exp == 0x1fu ? inf_nan : mag;
    return detail::f32_from_bits(sign | mag);
  }
};

/// bfloat16: the top half of a float32. Conversion rounds to nearest even; NaN stays NaN.
struct alignas(2) BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  BFloat16() = default;
  constexpr EMBER_HOST_DEVICE BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HOST_DEVICE BFloat16(float f) : x(from_float(f)) {}
  EMBER_HOST_DEVICE operator float() const { return to_float(x); }

  static EMBER_HOST_DEVICE float to_float(uint16_t h) { return to_float_wide(h); }
  static EMBER_HOST_DEVICE uint16_t from_float(float f) {
    return static_cast<uint16_t>(from_float_wide(f));
  }
  /// As Half's: the bits in a uint32_t (high half zero).
  static EMBER_HOST_DEVICE float to_float_wide(uint32_t h) {
    return detail::f32_from_bits(h << 16);
  }
  static EMBER_HOST_DEVICE uint32_t from_float_wide(float f) {
    const uint32_t u = detail::f32_bits(f);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;  // to nearest even
    // NaN by a select, not a return: a loop over it vectorises.
    return (u & 0x7fffffffu) > 0x7f800000u ? 0x7fc0u : rounded;
  }
};

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << float(h); }
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << float(h); }

/// The type arithmetic on T is carried out in: float for the 16-bit floats, T otherwise.
template <class T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <class T>
using opmath_t = typename OpMath<T>::type;

}  // namespace ember
