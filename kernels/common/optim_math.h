// The math of each fused optimizer update (the `*_update` rows of op_table_optim.h), once, for
// CPU and CUDA: the op chain of src/optim/*.cpp, op by op (kernels/common/optim_params.h has the
// rounding rules this follows).
//
// A functor (one per family) is built for one tensor of the list with its family's options and
// updates element i in two stages: first<V>(i, j, scratch) up to the square roots, whose
// arguments it leaves in scratch.s[..][j] (kSqrts of them); the driver takes the roots;
// second<V>(i, j, scratch) finishes. The CPU driver runs each stage over a block of elements (the
// stages vectorise, and the roots are taken with the vector instruction, exact as the scalar one;
// GCC keeps std::sqrt scalar in a vector loop because of errno); the GPU one per thread. Which
// state tensors are read and written depends on the options, so that part is a compile-time
// variant V (kVariants of them, variant() says which): a loop then has no conditional memory
// access. The other options are selects between values computed either way.
#pragma once

#include <cmath>
#include <type_traits>

#include "ember/core/half.h"
#include "ember/core/macros.h"
#include "kernels/common/optim_params.h"
#include "kernels/common/visit.h"

namespace ember::kernels {

// Whether the op chain's one-op kernels fuse a product into the add that reads it (alpha·b + a
// in AddOp, (value·a)·b + s in addcmul): nvcc always does (--fmad=true); GCC does when the
// target has FMA (-march=native; GCC contracts across statements in C++ too) and it optimises
// (an -O0 build, such as the ASan+UBSan one, keeps every product and add apart). Clang contracts
// only inside one expression, and AddOp's product comes from another function, so it does not.
#if defined(__CUDA_ARCH__) || \
    (defined(__GNUC__) && !defined(__clang__) && defined(__FMA__) && defined(__OPTIMIZE__))
#define EMBER_OPTIM_CONTRACTS 1
#else
#define EMBER_OPTIM_CONTRACTS 0
#endif

/// Runs fn(TypeTag<T>) for the float dtypes the optimizer kernels take (float32, float64, half,
/// bfloat16); the registration mask keeps every other dtype out.
template <class Fn>
void visit_optim_dtype(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

/// The op chain's arithmetic for dtype T, in its compute type M. A fused update holds in one
/// expression what the op chain computes in separate kernels, so the compiler must not fuse
/// across them: contraction is off (CPU) or avoided (mul: CUDA), and the products an op's kernel
/// fused itself are fused explicitly (madd).
template <class T>
struct OptimMath {
  using M = opmath_t<T>;
  static constexpr bool kNarrow = is_reduced_float_v<T>;

  /// An intermediate stored as a tensor of dtype T (identity for float and double).
  EMBER_HOST_DEVICE static M r(M x) {
    if constexpr (kNarrow)
      return T::to_float_wide(T::from_float_wide(x));
    else
      return x;
  }
  /// Element i of a tensor of dtype T, in M; and storing one, rounded to T. The 16-bit types go
  /// through their bits and the static conversions on 32-bit words (half.h's *_wide), never a
  /// Half/BFloat16 object or a 16-bit intermediate: with either, GCC kept the loops scalar (a
  /// float16 Adam step of 2^20 elements took 33 ms, bfloat16 11 ms, float 0.67).
  EMBER_HOST_DEVICE static M load(const T* a, int64_t i) {
    if constexpr (kNarrow)
      return T::to_float_wide(reinterpret_cast<const uint16_t*>(a)[i]);
    else
      return a[i];
  }
  EMBER_HOST_DEVICE static void store(T* a, int64_t i, M v) {
    if constexpr (kNarrow)
      reinterpret_cast<uint16_t*>(a)[i] = static_cast<uint16_t>(T::from_float_wide(v));
    else
      a[i] = v;
  }
  /// A scalar operand (x.mul_(beta), x.add_(eps)): wrapped in dtype T, as ScalarBuffer does
  /// (CastTo: the 16-bit types through float).
  EMBER_HOST_DEVICE static M sc(double x) {
    if constexpr (kNarrow)
      return static_cast<M>(T(static_cast<float>(x)));
    else
      return static_cast<M>(x);
  }
  /// a·b, rounded, never fused into the add that reads it. The CPU kernels' translation units
  /// turn contraction off (#pragma GCC optimize("fp-contract=off"), kernels/cpu/optim_*.cpp);
  /// nvcc fuses whatever it can, so the device path says so with its _rn intrinsics.
  EMBER_HOST_DEVICE static M mul(M a, M b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<M, double>)
      return __dmul_rn(a, b);
    else
      return __fmul_rn(a, b);
#else
    return a * b;
#endif
  }
  /// a·b + c as one op kernel computes it: fused where it fuses (EMBER_OPTIM_CONTRACTS).
  EMBER_HOST_DEVICE static M madd(M a, M b, M c) {
#if EMBER_OPTIM_CONTRACTS
    return std::fma(a, b, c);
#else
    return mul(a, b) + c;
#endif
  }
  /// AddOp: a + alpha·b (binary_functors.h: for the 16-bit types the product is rounded to T
  /// first unless alpha is 1), rounded to T. b is always a value of dtype T (loaded or rounded by
  /// every caller), so for the 16-bit types r(1·b) = b and the product can be rounded either way:
  /// one form, no select between two computed ones.
  EMBER_HOST_DEVICE static M add_scaled(M a, M b, M alpha) {
    if constexpr (kNarrow) return r(a + r(alpha * b));
    return r(madd(alpha, b, a));
  }
  /// AddcmulOp: s + (value·a)·b.
  EMBER_HOST_DEVICE static M addcmul(M s, M value, M a, M b) {
    return r(madd(mul(value, a), b, s));
  }
  /// AddcdivOp: s + (value·a) / b.
  EMBER_HOST_DEVICE static M addcdiv(M s, M value, M a, M b) { return r(s + mul(value, a) / b); }
  /// maximum(a, b) as MaximumOp: a NaN wins (a's first). Branch-free, with a quiet compare, so
  /// that the CPU loop if-converts and vectorises.
  EMBER_HOST_DEVICE static M maximum(M a, M b) {
#if defined(__CUDA_ARCH__)
    const M larger = a > b ? a : b;
#else
    const M larger = __builtin_isgreater(a, b) ? a : b;  // b for a NaN b
#endif
    return a != a ? a : larger;
  }
  /// c ? a : b, both already computed (a select, not a branch around the arithmetic). For the
  /// 16-bit types (M = float) it is a select of bits: GCC analyses their loops in 16-bit lanes and
  /// gives up on a float select under a bool ("unsupported data-type float").
  EMBER_HOST_DEVICE static M pick(bool c, M a, M b) {
    if constexpr (kNarrow) {
      const uint32_t m = 0u - static_cast<uint32_t>(c);
      return detail::f32_from_bits((detail::f32_bits(a) & m) | (detail::f32_bits(b) & ~m));
    } else {
      return c ? a : b;
    }
  }
};

/// Per-element values handed from a functor's first stage to its second: s[0], s[1] are square
/// rooted in between (the first kSqrts of them), k[0], k[1] are kept as they are. N elements: a
/// block on the CPU, 1 on the GPU.
template <class M, int N>
struct OptimScratch {
  M s[2][N];
  M k[2][N];
};

/// An alpha factor (add_scaled's), in M.
template <class M>
struct OptimAlpha {
  M v;
  EMBER_HOST_DEVICE explicit OptimAlpha(double x) : v(static_cast<M>(x)) {}
};

/// The gradient every family starts from: ±g (maximize), plus wd·p when weight decay is on (the
/// op chain's `grad.neg()` and `grad.add(p, weight_decay)`).
template <class Mth, class M>
EMBER_HOST_DEVICE M optim_decayed_grad(M g0, M pv, bool maximize, bool has_wd,
                                       const OptimAlpha<M>& wd) {
  const M gv = Mth::pick(maximize, -g0, g0);
  return Mth::pick(has_wd, Mth::add_scaled(gv, pv, wd.v), gv);
}

}  // namespace ember::kernels
