// Vectorised float32 bodies for the transcendental elementwise rows, through SLEEF (Debian
// libsleef-dev, the library PyTorch uses for the same job): 16 lanes (AVX-512) where the kernels
// are compiled for a CPU that has it, else 8 (AVX2). The dense CPU loop uses VecMath<Op> when it
// exists; every other case runs the scalar functor.
//
// Why: the scalar libm expf is ~15 ns/element, so exp over 16M floats takes ~250 ms on one core;
// SLEEF's 1-ulp expf8 does 8 lanes in a few ns. On an AVX-512 core (the Sapphire Rapids VM here)
// the 16-lane variants, and gelu's exp inlined instead of called, gave one thread over 16M floats
// (benchmarks/compare, §2 *_out): exp 8.1 -> 12.2 GB/s, gelu 6.2 -> 9.7 GB/s (LibTorch 8.5, 8.1).
// On AVX2 SLEEF's expf8 still left exp compute bound (one EPYC core: 6.8-7.0 GB/s against a
// 12 GB/s triad), so exp, sigmoid, silu and mish now use an inline exp (exp_full, within 1 ulp):
// 9.5-9.7 GB/s, 2 threads 11.6 -> 17.3. The bodies are written once against the small vec::
// layer below.
#pragma once

#include <type_traits>

#include "kernels/common/unary_functors.h"

#if defined(EMBER_HAVE_SLEEF) && defined(__AVX512F__)
#include <immintrin.h>
#include <sleef.h>
#define EMBER_VEC_F32_LANES 16
#elif defined(EMBER_HAVE_SLEEF) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <sleef.h>
#define EMBER_VEC_F32_LANES 8
#endif

namespace ember::kernels {

/// VecMath<Op>::apply(vec::F) computes Op on one register of floats; absent (false_type) when
/// not vectorised.
template <class Op>
struct VecMath : std::false_type {};

#ifdef EMBER_VEC_F32_LANES
namespace vec {
#if EMBER_VEC_F32_LANES == 16
using F = __m512;
// SLEEF's name for function `fn` at accuracy `acc` (u10 = 1.0 ulp) for this register width.
#define EMBER_SLEEF(fn, acc) Sleef_##fn##f16_##acc##avx512f
inline F load(const float* p) { return _mm512_loadu_ps(p); }
inline void store(float* p, F x) { _mm512_storeu_ps(p, x); }
inline void stream(float* p, F x) { _mm512_stream_ps(p, x); }  // p 64-byte aligned
inline F set1(float v) { return _mm512_set1_ps(v); }
inline F add(F a, F b) { return _mm512_add_ps(a, b); }
inline F mul(F a, F b) { return _mm512_mul_ps(a, b); }
inline F div(F a, F b) { return _mm512_div_ps(a, b); }
inline F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }    // a·b + c
inline F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a·b
// (The all-lanes maskz_ forms of max, andnot and slli below compile to the plain instructions;
// GCC 12 warns -Wmaybe-uninitialized about the _mm_undefined pass-through of the plain forms.)
inline F max(F a, F b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }  // b when either is NaN
inline F min(F a, F b) { return _mm512_maskz_min_ps(0xFFFF, a, b); }  // b when either is NaN
// 2^n for t = 1.5·2^23 + n (n an integer in t's low mantissa bits).
inline F pow2_of_rounded(F t) {
  const __m512i n = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(0x4B400000 - 127));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, n, 23));
}
// 2^n as two factors 2^(n>>1) and 2^(n - (n>>1)), each a normal float for n in [-252, 254].
inline void pow2_of_rounded_split(F t, F& s1, F& s2) {
  const __m512i n = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(0x4B400000));
  const __m512i n1 = _mm512_maskz_srai_epi32(0xFFFF, n, 1);
  const __m512i bias = _mm512_set1_epi32(127);
  s1 = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, _mm512_add_epi32(n1, bias), 23));
  s2 = _mm512_castsi512_ps(
      _mm512_maskz_slli_epi32(0xFFFF, _mm512_add_epi32(_mm512_sub_epi32(n, n1), bias), 23));
}
// Bit operations through the integer unit: _mm512_and_ps needs AVX512DQ, these only AVX512F.
inline F bit_and(F a, F b) {
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
inline F bit_andnot(F a, F b) {  // ~a & b
  return _mm512_castsi512_ps(
      _mm512_maskz_andnot_epi32(0xFFFF, _mm512_castps_si512(a), _mm512_castps_si512(b)));
}
inline F bit_or(F a, F b) {
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
inline F bit_xor(F a, F b) {
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
#else
using F = __m256;
#define EMBER_SLEEF(fn, acc) Sleef_##fn##f8_##acc##avx2
inline F load(const float* p) { return _mm256_loadu_ps(p); }
inline void store(float* p, F x) { _mm256_storeu_ps(p, x); }
inline void stream(float* p, F x) { _mm256_stream_ps(p, x); }  // p 32-byte aligned
inline F set1(float v) { return _mm256_set1_ps(v); }
inline F add(F a, F b) { return _mm256_add_ps(a, b); }
inline F mul(F a, F b) { return _mm256_mul_ps(a, b); }
inline F div(F a, F b) { return _mm256_div_ps(a, b); }
inline F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
inline F fnmadd(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }
inline F max(F a, F b) { return _mm256_max_ps(a, b); }
inline F min(F a, F b) { return _mm256_min_ps(a, b); }
inline F pow2_of_rounded(F t) {
  const __m256i n = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000 - 127));
  return _mm256_castsi256_ps(_mm256_slli_epi32(n, 23));
}
inline void pow2_of_rounded_split(F t, F& s1, F& s2) {
  const __m256i n = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000));
  const __m256i n1 = _mm256_srai_epi32(n, 1);
  const __m256i bias = _mm256_set1_epi32(127);
  s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
  s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(n, n1), bias), 23));
}
inline F bit_and(F a, F b) { return _mm256_and_ps(a, b); }
inline F bit_andnot(F a, F b) { return _mm256_andnot_ps(a, b); }
inline F bit_or(F a, F b) { return _mm256_or_ps(a, b); }
inline F bit_xor(F a, F b) { return _mm256_xor_ps(a, b); }
#endif
constexpr int kLanes = EMBER_VEC_F32_LANES;
inline F one() { return set1(1.0f); }
inline F neg(F x) { return bit_xor(x, set1(-0.0f)); }

// e^r for the reduced argument of the inline exps below: t = x·log2(e) rounded to an integer n
// (t = 1.5·2^23 + n), r = x - n·ln(2) in [-ln2/2, ln2/2]; returns e^r by Cephes' expf minimax
// polynomial.
inline F exp_reduced(F x, F& t) {
  const F magic = set1(12582912.0f);  // 1.5·2^23: adding it rounds to an integer
  t = fmadd(x, set1(1.44269504088896341f), magic);
  const F fn = add(t, neg(magic));
  F r = fnmadd(fn, set1(0.693359375f), x);  // ln(2) in two parts, so n·ln(2) is exact
  r = fmadd(fn, set1(2.12194440e-4f), r);
  F y = set1(1.9875691500e-4f);
  y = fmadd(y, r, set1(1.3981999507e-3f));
  y = fmadd(y, r, set1(8.3334519073e-3f));
  y = fmadd(y, r, set1(4.1665795894e-2f));
  y = fmadd(y, r, set1(1.6666665459e-1f));
  y = fmadd(y, r, set1(5.0000001201e-1f));
  return fmadd(mul(y, r), r, add(r, one()));
}

// exp(x) over the whole float range, inline, within 1 ulp (tests/ops/vectorised_unary_test.cpp
// checks it). Inlined into a body it costs ~20 instructions where a call into libsleef costs a
// call, spills and no interleaving with the caller's arithmetic: exp over 16M floats on one AVX2
// core went from ~7 GB/s (SLEEF's 1-ulp expf8, compute bound) to ~9.6 (80% of the triad). The
// argument is clamped to [-104, 89], beyond which the result rounds to 0 or overflows, and 2^n is
// applied as two factors, so y·2^n1 is exact and the one rounding of ·2^n2 gives correct subnormals
// and inf. NaN passes through both clamps (min/max return their second operand for NaN).
inline F exp_full(F x) {
  x = min(set1(89.0f), max(set1(-104.0f), x));
  F t;
  const F y = exp_reduced(x, t);
  F s1, s2;
  pow2_of_rounded_split(t, s1, s2);
  return mul(mul(y, s1), s2);
}

// exp(x) for x <= 0 (or NaN), the cheaper form for gelu's erf: below ln(FLT_MIN) the argument is
// clamped, so the result is FLT_MIN·(1 ± ulp) rather than 0 or a subnormal (harmless inside erf).
inline F exp_nonpositive(F x) {
  F t;
  const F y = exp_reduced(max(set1(-87.33654f), x), t);
  return mul(y, pow2_of_rounded(t));
}

// erf for use inside gelu only: Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7 absolute. Inside
// 0.5·x·(1 + erf) an absolute error is harmless, and this is ~5x faster than SLEEF's 1-ulp erff
// (33 ns per 8 lanes measured on AVX2), which made gelu compute-bound at 1.9 GB/s. ember::erf
// itself keeps SLEEF's accuracy. inf -> 1, -inf -> -1, NaN -> NaN.
inline F erf_abs_1e7(F x) {
  const F sign_bit = set1(-0.0f);
  const F sign = bit_and(x, sign_bit);
  const F ax = bit_andnot(sign_bit, x);
  // (rcp + a Newton step instead of this division measured no faster here.)
  const F t = div(one(), fmadd(set1(0.3275911f), ax, one()));
  F poly = fmadd(set1(1.061405429f), t, set1(-1.453152027f));
  poly = fmadd(poly, t, set1(1.421413741f));
  poly = fmadd(poly, t, set1(-0.284496736f));
  poly = fmadd(poly, t, set1(0.254829592f));
  poly = mul(poly, t);
  const F e = exp_nonpositive(neg(mul(ax, ax)));
  return bit_or(fnmadd(poly, e, one()), sign);
}
}  // namespace vec

#define EMBER_VEC_UNARY(Op, body)          \
  template <>                              \
  struct VecMath<Op> : std::true_type {    \
    static inline vec::F apply(vec::F x) { \
      using namespace vec;                 \
      return body;                         \
    }                                      \
  };

EMBER_VEC_UNARY(ExpOp, exp_full(x))
EMBER_VEC_UNARY(Exp2Op, EMBER_SLEEF(exp2, u10)(x))
EMBER_VEC_UNARY(Expm1Op, EMBER_SLEEF(expm1, u10)(x))
EMBER_VEC_UNARY(LogOp, EMBER_SLEEF(log, u10)(x))
EMBER_VEC_UNARY(Log1pOp, EMBER_SLEEF(log1p, u10)(x))
EMBER_VEC_UNARY(Log2Op, EMBER_SLEEF(log2, u10)(x))
EMBER_VEC_UNARY(Log10Op, EMBER_SLEEF(log10, u10)(x))
EMBER_VEC_UNARY(SinOp, EMBER_SLEEF(sin, u10)(x))
EMBER_VEC_UNARY(CosOp, EMBER_SLEEF(cos, u10)(x))
EMBER_VEC_UNARY(TanOp, EMBER_SLEEF(tan, u10)(x))
EMBER_VEC_UNARY(AsinOp, EMBER_SLEEF(asin, u10)(x))
EMBER_VEC_UNARY(AcosOp, EMBER_SLEEF(acos, u10)(x))
EMBER_VEC_UNARY(AtanOp, EMBER_SLEEF(atan, u10)(x))
EMBER_VEC_UNARY(SinhOp, EMBER_SLEEF(sinh, u10)(x))
EMBER_VEC_UNARY(CoshOp, EMBER_SLEEF(cosh, u10)(x))
EMBER_VEC_UNARY(TanhOp, EMBER_SLEEF(tanh, u10)(x))
EMBER_VEC_UNARY(ErfOp, EMBER_SLEEF(erf, u10)(x))
EMBER_VEC_UNARY(ErfcOp, EMBER_SLEEF(erfc, u15)(x))
// 1 / (1 + e^-x)
EMBER_VEC_UNARY(SigmoidOp, div(one(), add(one(), exp_full(neg(x)))))
// x / (1 + e^-x)
EMBER_VEC_UNARY(SiluOp, div(x, add(one(), exp_full(neg(x)))))
// x · tanh(log1p(e^x))
EMBER_VEC_UNARY(MishOp, mul(x, EMBER_SLEEF(tanh, u10)(EMBER_SLEEF(log1p, u10)(exp_full(x)))))
// 0.5 · x · (1 + erf(x / √2))
EMBER_VEC_UNARY(GeluOp, mul(mul(set1(0.5f), x),
                            add(one(), erf_abs_1e7(mul(x, set1(0.70710678118654752440f))))))
// 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))
EMBER_VEC_UNARY(GeluTanhOp,
                mul(mul(set1(0.5f), x),
                    add(one(),
                        EMBER_SLEEF(tanh, u10)(mul(set1(0.79788456080286535588f),
                                                   fmadd(mul(set1(0.044715f), x), mul(x, x), x))))))
#undef EMBER_VEC_UNARY
#endif  // EMBER_VEC_F32_LANES

/// Runs a vectorised unary op over n dense floats. The tail goes through the same vector body in
/// a zero-padded register, so every element gets the same bits wherever a thread's chunk or a
/// streaming block ends (the scalar functor can differ from SLEEF's by an ulp).
template <class Op>
inline void vec_unary_f32(const float* in, float* out, int64_t n, [[maybe_unused]] const Op& op) {
  int64_t i = 0;
#ifdef EMBER_VEC_F32_LANES
  for (; i + vec::kLanes <= n; i += vec::kLanes)
    vec::store(out + i, VecMath<Op>::apply(vec::load(in + i)));
  if (i < n) {
    float lanes[vec::kLanes] = {};
    for (int64_t j = i; j < n; ++j) lanes[j - i] = in[j];
    vec::store(lanes, VecMath<Op>::apply(vec::load(lanes)));
    for (int64_t j = i; j < n; ++j) out[j] = lanes[j - i];
  }
#else
  for (; i < n; ++i) out[i] = op(in[i]);
#endif
}

}  // namespace ember::kernels
