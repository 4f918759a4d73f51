// Vectorised float32 bodies for the transcendental elementwise rows, 8 lanes (AVX2) at a time,
// through SLEEF (Debian libsleef-dev, the library PyTorch uses for the same job). The dense CPU
// loop uses VecMath<Op> when it exists; every other case runs the scalar functor.
//
// Why: the scalar libm expf is ~15 ns/element, so exp over 16M floats takes ~250 ms on one core;
// SLEEF's 1-ulp expf8 does 8 lanes in a few ns, which makes the op memory-bound as it should be.
#pragma once

#include <type_traits>

#include "kernels/common/unary_functors.h"

#if defined(EMBER_HAVE_SLEEF) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <sleef.h>
#define EMBER_VEC_F32_AVX2 1
#endif

namespace ember::kernels {

/// VecMath<Op>::apply(__m256) computes Op on 8 floats; absent (false_type) when not vectorised.
template <class Op>
struct VecMath : std::false_type {};

#ifdef EMBER_VEC_F32_AVX2
namespace vec {
inline __m256 set1(float v) { return _mm256_set1_ps(v); }
inline __m256 one() { return _mm256_set1_ps(1.0f); }
inline __m256 neg(__m256 x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f)); }

// erf for use inside gelu only: Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7 absolute. Inside
// 0.5·x·(1 + erf) an absolute error is harmless, and this is ~5x faster than SLEEF's 1-ulp erff8
// (33 ns per 8 lanes measured here), which made gelu compute-bound at 1.9 GB/s. ember::erf itself
// keeps SLEEF's accuracy. inf -> 1, -inf -> -1, NaN -> NaN.
inline __m256 erf_abs_1e7(__m256 x) {
  const __m256 sign = _mm256_and_ps(x, _mm256_set1_ps(-0.0f));
  const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 t = _mm256_div_ps(one(), _mm256_fmadd_ps(set1(0.3275911f), ax, one()));
  __m256 poly = _mm256_fmadd_ps(set1(1.061405429f), t, set1(-1.453152027f));
  poly = _mm256_fmadd_ps(poly, t, set1(1.421413741f));
  poly = _mm256_fmadd_ps(poly, t, set1(-0.284496736f));
  poly = _mm256_fmadd_ps(poly, t, set1(0.254829592f));
  poly = _mm256_mul_ps(poly, t);
  const __m256 e = Sleef_expf8_u10avx2(neg(_mm256_mul_ps(ax, ax)));
  return _mm256_or_ps(_mm256_fnmadd_ps(poly, e, one()), sign);
}
}  // namespace vec

#define EMBER_VEC_UNARY(Op, body)                         \
  template <>                                             \
  struct VecMath<Op> : std::true_type {                   \
    static inline __m256 apply(__m256 x) { return body; } \
  };

EMBER_VEC_UNARY(ExpOp, Sleef_expf8_u10avx2(x))
EMBER_VEC_UNARY(Exp2Op, Sleef_exp2f8_u10avx2(x))
EMBER_VEC_UNARY(Expm1Op, Sleef_expm1f8_u10avx2(x))
EMBER_VEC_UNARY(LogOp, Sleef_logf8_u10avx2(x))
EMBER_VEC_UNARY(Log1pOp, Sleef_log1pf8_u10avx2(x))
EMBER_VEC_UNARY(Log2Op, Sleef_log2f8_u10avx2(x))
EMBER_VEC_UNARY(Log10Op, Sleef_log10f8_u10avx2(x))
EMBER_VEC_UNARY(SinOp, Sleef_sinf8_u10avx2(x))
EMBER_VEC_UNARY(CosOp, Sleef_cosf8_u10avx2(x))
EMBER_VEC_UNARY(TanOp, Sleef_tanf8_u10avx2(x))
EMBER_VEC_UNARY(AsinOp, Sleef_asinf8_u10avx2(x))
EMBER_VEC_UNARY(AcosOp, Sleef_acosf8_u10avx2(x))
EMBER_VEC_UNARY(AtanOp, Sleef_atanf8_u10avx2(x))
EMBER_VEC_UNARY(SinhOp, Sleef_sinhf8_u10avx2(x))
EMBER_VEC_UNARY(CoshOp, Sleef_coshf8_u10avx2(x))
EMBER_VEC_UNARY(TanhOp, Sleef_tanhf8_u10avx2(x))
EMBER_VEC_UNARY(ErfOp, Sleef_erff8_u10avx2(x))
EMBER_VEC_UNARY(ErfcOp, Sleef_erfcf8_u15avx2(x))
// 1 / (1 + e^-x)
EMBER_VEC_UNARY(SigmoidOp,
                _mm256_div_ps(vec::one(),
                              _mm256_add_ps(vec::one(), Sleef_expf8_u10avx2(vec::neg(x)))))
// x / (1 + e^-x)
EMBER_VEC_UNARY(SiluOp,
                _mm256_div_ps(x, _mm256_add_ps(vec::one(), Sleef_expf8_u10avx2(vec::neg(x)))))
// x · tanh(log1p(e^x))
EMBER_VEC_UNARY(MishOp,
                _mm256_mul_ps(x,
                              Sleef_tanhf8_u10avx2(Sleef_log1pf8_u10avx2(Sleef_expf8_u10avx2(x)))))
// 0.5 · x · (1 + erf(x / √2))
EMBER_VEC_UNARY(GeluOp, _mm256_mul_ps(_mm256_mul_ps(vec::set1(0.5f), x),
                                      _mm256_add_ps(vec::one(),
                                                    vec::erf_abs_1e7(_mm256_mul_ps(
                                                        x, vec::set1(0.70710678118654752440f))))))
// 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))
EMBER_VEC_UNARY(
    GeluTanhOp,
    _mm256_mul_ps(_mm256_mul_ps(vec::set1(0.5f), x),
                  _mm256_add_ps(vec::one(),
                                Sleef_tanhf8_u10avx2(_mm256_mul_ps(
                                    vec::set1(0.79788456080286535588f),
                                    _mm256_fmadd_ps(_mm256_mul_ps(vec::set1(0.044715f), x),
                                                    _mm256_mul_ps(x, x), x))))))
#undef EMBER_VEC_UNARY
#endif  // EMBER_VEC_F32_AVX2

/// Runs a vectorised unary op over n dense floats; the tail uses the scalar functor.
template <class Op>
inline void vec_unary_f32(const float* in, float* out, int64_t n, const Op& op) {
  int64_t i = 0;
#ifdef EMBER_VEC_F32_AVX2
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, VecMath<Op>::apply(_mm256_loadu_ps(in + i)));
#endif
  for (; i < n; ++i) out[i] = op(in[i]);
}

}  // namespace ember::kernels
