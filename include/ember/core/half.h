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
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
EMBER_HOST_DEVICE inline float f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
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
    uint32_t u = detail::f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN/Inf
    if (abs >= 0x477ff000u) return sign | 0x7c00u;                                  // overflow
    if (abs < 0x38800000u) {                                                        // subnormal
      // Add 0.5 (as float) so the FPU does the round-to-nearest-even into the low mantissa bits.
      float shifted = detail::f32_from_bits(abs) + 0.5f;
      return sign | static_cast<uint16_t>(detail::f32_bits(shifted) - 0x3f000000u);
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (abs >> 13));
  }
  static EMBER_HOST_DEVICE float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return detail::f32_from_bits(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      // Subnormal or zero: value = mant * 2^-24.
      float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
      return sign ? -v : v;
    }
    return detail::f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

/// bfloat16: the top half of a float32. Conversion rounds to nearest even; NaN stays NaN.
struct alignas(2) BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  BFloat16() = default;
  constexpr EMBER_HOST_DEVICE BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HOST_DEVICE BFloat16(float f) : x(from_float(f)) {}
  EMBER_HOST_DEVICE operator float() const { return detail::f32_from_bits(uint32_t(x) << 16); }

  static EMBER_HOST_DEVICE uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>((u + rounding_bias) >> 16);
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
