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

/// SGD: d = ±g (+ wd·p); buf = d (first step) or momentum·buf + (1 - dampening)·d; d = buf or
/// d + momentum·buf (nesterov); p += -lr·d. Variants: no momentum, a new buffer, a buffer.
template <class T>
struct SgdStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 0;
  static constexpr int kVariants = 3;
  T* p;
  const T* g;
  T* buf;
  OptimAlpha<M> wd, mom, damp, neg_lr;
  M mom_sc;
  bool has_wd, has_mom, maximize, nesterov, first_step;
  EMBER_HOST_DEVICE SgdStep(const SgdUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        buf(static_cast<T*>(t.state[0])),
        wd(P.weight_decay),
        mom(P.momentum),
        damp(1 - P.dampening),
        neg_lr(-P.lr),
        mom_sc(Mth::sc(P.momentum)),
        has_wd(P.weight_decay != 0),
        has_mom(P.momentum != 0),
        maximize(P.maximize),
        nesterov(P.nesterov),
        first_step(t.first) {}
  EMBER_HOST_DEVICE int variant() const { return !has_mom ? 0 : first_step ? 1 : 2; }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int, S&) const {
    const M pv = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    M d = optim_decayed_grad<Mth>(g0, pv, maximize, has_wd, wd);
    if constexpr (V != 0) {
      M b = d;
      if constexpr (V == 2) {
        b = Mth::r(Mth::mul(Mth::load(buf, i), mom_sc));
        b = Mth::add_scaled(b, d, damp.v);
      }
      Mth::store(buf, i, b);
      d = Mth::pick(nesterov, Mth::add_scaled(d, b, mom.v), b);
    }
    Mth::store(p, i, Mth::add_scaled(pv, d, neg_lr.v));
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t, int, const S&) const {}
};

/// Adam / AdamW. Variants: without, with amsgrad's running maximum.
template <class T>
struct AdamStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 1;
  static constexpr int kVariants = 2;
  T* p;
  const T* g;
  T* m;
  T* v;
  T* mx;
  M beta1, beta2, eps, decay, omb2, step_size, bc2_sqrt;
  OptimAlpha<M> omb1, wd;
  bool maximize, decoupled, coupled_decay, amsgrad;
  EMBER_HOST_DEVICE AdamStep(const AdamUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        m(static_cast<T*>(t.state[0])),
        v(static_cast<T*>(t.state[1])),
        mx(static_cast<T*>(t.state[2])),
        beta1(Mth::sc(P.beta1)),
        beta2(Mth::sc(P.beta2)),
        eps(Mth::sc(P.eps)),
        decay(Mth::sc(P.decay_factor)),
        omb2(static_cast<M>(P.one_minus_beta2)),
        step_size(static_cast<M>(t.scalar[0])),
        bc2_sqrt(Mth::sc(t.scalar[1])),
        omb1(P.one_minus_beta1),
        wd(P.weight_decay),
        maximize(P.maximize),
        decoupled(P.decoupled),
        coupled_decay(!P.decoupled && P.weight_decay != 0),
        amsgrad(P.amsgrad) {}
  EMBER_HOST_DEVICE int variant() const { return amsgrad ? 1 : 0; }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int j, S& s) const {
    const M p0 = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    M gv = Mth::pick(maximize, -g0, g0);
    const M pv = Mth::pick(decoupled, Mth::r(Mth::mul(p0, decay)), p0);
    gv = Mth::pick(coupled_decay, Mth::add_scaled(gv, p0, wd.v), gv);
    M mv = Mth::r(Mth::mul(Mth::load(m, i), beta1));
    mv = Mth::add_scaled(mv, gv, omb1.v);
    M vv = Mth::r(Mth::mul(Mth::load(v, i), beta2));
    vv = Mth::addcmul(vv, omb2, gv, gv);
    M second_moment = vv;
    if constexpr (V == 1) {
      second_moment = Mth::maximum(Mth::load(mx, i), vv);
      Mth::store(mx, i, second_moment);
    }
    Mth::store(m, i, mv);
    Mth::store(v, i, vv);
    s.s[0][j] = second_moment;
    s.k[0][j] = pv;
    s.k[1][j] = mv;
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t i, int j, const S& s) const {
    M denom = Mth::r(s.s[0][j]);
    denom = Mth::r(denom / bc2_sqrt);
    denom = Mth::r(denom + eps);
    Mth::store(p, i, Mth::addcdiv(s.k[0][j], step_size, s.k[1][j], denom));
  }
};

/// Adagrad: sum += g·g; p += -clr·g / (sqrt(sum) + eps).
template <class T>
struct AdagradStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 1;
  static constexpr int kVariants = 1;
  T* p;
  const T* g;
  T* sum;
  OptimAlpha<M> wd;
  M eps, step_size;
  bool has_wd, maximize;
  EMBER_HOST_DEVICE AdagradStep(const AdagradUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        sum(static_cast<T*>(t.state[0])),
        wd(P.weight_decay),
        eps(Mth::sc(P.eps)),
        step_size(static_cast<M>(t.scalar[0])),
        has_wd(P.weight_decay != 0),
        maximize(P.maximize) {}
  EMBER_HOST_DEVICE int variant() const { return 0; }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int j, S& s) const {
    const M pv = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    M gv = optim_decayed_grad<Mth>(g0, pv, maximize, has_wd, wd);
    const M sv = Mth::addcmul(Mth::load(sum, i), M(1), gv, gv);
    Mth::store(sum, i, sv);
    s.s[0][j] = sv;
    s.k[0][j] = pv;
    s.k[1][j] = gv;
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t i, int j, const S& s) const {
    M std_v = Mth::r(s.s[0][j]);
    std_v = Mth::r(std_v + eps);
    Mth::store(p, i, Mth::addcdiv(s.k[0][j], step_size, s.k[1][j], std_v));
  }
};

/// RMSprop. Variants: plain, centered, momentum, centered with momentum.
template <class T>
struct RmspropStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 1;
  static constexpr int kVariants = 4;
  T* p;
  const T* g;
  T* sq;
  T* ga;
  T* buf;
  OptimAlpha<M> wd, oma, neg_lr;
  M alpha, eps, mom;
  bool has_wd, maximize, centered, has_mom;
  EMBER_HOST_DEVICE RmspropStep(const RmspropUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        sq(static_cast<T*>(t.state[0])),
        ga(static_cast<T*>(t.state[1])),
        buf(static_cast<T*>(t.state[2])),
        wd(P.weight_decay),
        oma(P.one_minus_alpha),
        neg_lr(-P.lr),
        alpha(Mth::sc(P.alpha)),
        eps(Mth::sc(P.eps)),
        mom(Mth::sc(P.momentum)),
        has_wd(P.weight_decay != 0),
        maximize(P.maximize),
        centered(P.centered),
        has_mom(P.momentum > 0) {}
  EMBER_HOST_DEVICE int variant() const { return (centered ? 1 : 0) + (has_mom ? 2 : 0); }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int j, S& s) const {
    const M pv = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    M gv = optim_decayed_grad<Mth>(g0, pv, maximize, has_wd, wd);
    M sv = Mth::r(Mth::mul(Mth::load(sq, i), alpha));
    sv = Mth::addcmul(sv, oma.v, gv, gv);
    Mth::store(sq, i, sv);
    M root_arg = sv;
    if constexpr ((V & 1) != 0) {
      M gav = Mth::r(Mth::mul(Mth::load(ga, i), alpha));
      gav = Mth::add_scaled(gav, gv, oma.v);
      Mth::store(ga, i, gav);
      root_arg = Mth::addcmul(sv, M(-1), gav, gav);
    }
    s.s[0][j] = root_arg;
    s.k[0][j] = pv;
    s.k[1][j] = gv;
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t i, int j, const S& s) const {
    M avg = Mth::r(s.s[0][j]);
    avg = Mth::r(avg + eps);
    const M pv = s.k[0][j], gv = s.k[1][j];
    if constexpr ((V & 2) != 0) {
      M b = Mth::r(Mth::mul(Mth::load(buf, i), mom));
      b = Mth::addcdiv(b, M(1), gv, avg);
      Mth::store(buf, i, b);
      Mth::store(p, i, Mth::add_scaled(pv, b, neg_lr.v));
    } else {
      Mth::store(p, i, Mth::addcdiv(pv, neg_lr.v, gv, avg));
    }
  }
};

/// Adamax: m = beta1·m + (1 - beta1)·g; u = max(beta2·u, |g| + eps); p += step·m / u.
template <class T>
struct AdamaxStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 0;
  static constexpr int kVariants = 1;
  T* p;
  const T* g;
  T* m;
  T* u;
  OptimAlpha<M> wd, omb1;
  M beta1, beta2, eps, step_size;
  bool has_wd, maximize;
  EMBER_HOST_DEVICE AdamaxStep(const AdamaxUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        m(static_cast<T*>(t.state[0])),
        u(static_cast<T*>(t.state[1])),
        wd(P.weight_decay),
        omb1(P.one_minus_beta1),
        beta1(Mth::sc(P.beta1)),
        beta2(Mth::sc(P.beta2)),
        eps(Mth::sc(P.eps)),
        step_size(static_cast<M>(t.scalar[0])),
        has_wd(P.weight_decay != 0),
        maximize(P.maximize) {}
  EMBER_HOST_DEVICE int variant() const { return 0; }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int, S&) const {
    const M pv = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    M gv = optim_decayed_grad<Mth>(g0, pv, maximize, has_wd, wd);
    M mv = Mth::r(Mth::mul(Mth::load(m, i), beta1));
    mv = Mth::add_scaled(mv, gv, omb1.v);
    const M uv = Mth::r(Mth::mul(Mth::load(u, i), beta2));
    const M norm = Mth::r(Mth::r(std::fabs(gv)) + eps);
    const M un = Mth::maximum(uv, norm);
    Mth::store(m, i, mv);
    Mth::store(u, i, un);
    Mth::store(p, i, Mth::addcdiv(pv, step_size, mv, un));
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t, int, const S&) const {}
};

/// Adadelta: two roots, sqrt(square_avg + eps) and sqrt(acc_delta + eps).
template <class T>
struct AdadeltaStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 2;
  static constexpr int kVariants = 1;
  T* p;
  const T* g;
  T* sq;
  T* acc;
  OptimAlpha<M> wd, neg_lr;
  M rho, omr, eps;
  bool has_wd, maximize;
  EMBER_HOST_DEVICE AdadeltaStep(const AdadeltaUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        sq(static_cast<T*>(t.state[0])),
        acc(static_cast<T*>(t.state[1])),
        wd(P.weight_decay),
        neg_lr(-P.lr),
        rho(Mth::sc(P.rho)),
        omr(static_cast<M>(P.one_minus_rho)),
        eps(Mth::sc(P.eps)),
        has_wd(P.weight_decay != 0),
        maximize(P.maximize) {}
  EMBER_HOST_DEVICE int variant() const { return 0; }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int j, S& s) const {
    const M pv = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    M gv = optim_decayed_grad<Mth>(g0, pv, maximize, has_wd, wd);
    M sv = Mth::r(Mth::mul(Mth::load(sq, i), rho));
    sv = Mth::addcmul(sv, omr, gv, gv);
    Mth::store(sq, i, sv);
    s.s[0][j] = Mth::r(sv + eps);
    s.s[1][j] = Mth::r(Mth::load(acc, i) + eps);
    s.k[0][j] = pv;
    s.k[1][j] = gv;
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t i, int j, const S& s) const {
    const M std_v = Mth::r(s.s[0][j]);
    M delta = Mth::r(s.s[1][j]);
    delta = Mth::r(delta / std_v);
    delta = Mth::r(Mth::mul(delta, s.k[1][j]));
    M an = Mth::r(Mth::mul(Mth::load(acc, i), rho));
    an = Mth::addcmul(an, omr, delta, delta);
    Mth::store(acc, i, an);
    Mth::store(p, i, Mth::add_scaled(s.k[0][j], delta, neg_lr.v));
  }
};

/// NAdam.
template <class T>
struct NadamStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 1;
  static constexpr int kVariants = 1;
  T* p;
  const T* g;
  T* m;
  T* v;
  OptimAlpha<M> wd, omb1;
  M beta1, beta2, omb2, eps, bc2, grad_step, avg_step;
  bool has_wd;
  EMBER_HOST_DEVICE NadamStep(const NadamUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        m(static_cast<T*>(t.state[0])),
        v(static_cast<T*>(t.state[1])),
        wd(P.weight_decay),
        omb1(P.one_minus_beta1),
        beta1(Mth::sc(P.beta1)),
        beta2(Mth::sc(P.beta2)),
        omb2(static_cast<M>(P.one_minus_beta2)),
        eps(Mth::sc(P.eps)),
        bc2(Mth::sc(t.scalar[0])),
        grad_step(static_cast<M>(t.scalar[1])),
        avg_step(static_cast<M>(t.scalar[2])),
        has_wd(P.weight_decay != 0) {}
  EMBER_HOST_DEVICE int variant() const { return 0; }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int j, S& s) const {
    const M pv = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    const M gv = Mth::pick(has_wd, Mth::add_scaled(g0, pv, wd.v), g0);
    M mv = Mth::r(Mth::mul(Mth::load(m, i), beta1));
    mv = Mth::add_scaled(mv, gv, omb1.v);
    M vv = Mth::r(Mth::mul(Mth::load(v, i), beta2));
    vv = Mth::addcmul(vv, omb2, gv, gv);
    Mth::store(m, i, mv);
    Mth::store(v, i, vv);
    s.s[0][j] = Mth::r(vv / bc2);
    s.k[0][j] = pv;
    s.k[1][j] = gv;
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t i, int j, const S& s) const {
    M denom = Mth::r(s.s[0][j]);
    denom = Mth::r(denom + eps);
    M pv = Mth::addcdiv(s.k[0][j], grad_step, s.k[1][j], denom);
    pv = Mth::addcdiv(pv, avg_step, Mth::load(m, i), denom);
    Mth::store(p, i, pv);
  }
};

/// RAdam: the update rectified (rho_t > 5: scalar[3]) or not; both computed, one picked.
template <class T>
struct RadamStep {
  using Mth = OptimMath<T>;
  using M = typename Mth::M;
  static constexpr int kSqrts = 1;
  static constexpr int kVariants = 1;
  T* p;
  const T* g;
  T* m;
  T* v;
  OptimAlpha<M> wd, omb1;
  M beta1, beta2, omb2, eps, lr, bc1, bc2_sqrt, rect;
  bool has_wd, rectified;
  EMBER_HOST_DEVICE RadamStep(const RadamUpdateParams& P, const OptimTensor& t)
      : p(static_cast<T*>(t.param)),
        g(static_cast<const T*>(t.grad)),
        m(static_cast<T*>(t.state[0])),
        v(static_cast<T*>(t.state[1])),
        wd(P.weight_decay),
        omb1(P.one_minus_beta1),
        beta1(Mth::sc(P.beta1)),
        beta2(Mth::sc(P.beta2)),
        omb2(static_cast<M>(P.one_minus_beta2)),
        eps(Mth::sc(P.eps)),
        lr(Mth::sc(P.lr)),
        bc1(Mth::sc(t.scalar[0])),
        bc2_sqrt(Mth::sc(t.scalar[1])),
        rect(Mth::sc(t.scalar[2])),
        has_wd(P.weight_decay != 0),
        rectified(t.scalar[3] != 0) {}
  EMBER_HOST_DEVICE int variant() const { return 0; }
  template <int V, class S>
  EMBER_HOST_DEVICE void first(int64_t i, int j, S& s) const {
    const M pv = Mth::load(p, i);
    const M g0 = Mth::load(g, i);
    const M gv = Mth::pick(has_wd, Mth::add_scaled(g0, pv, wd.v), g0);
    M mv = Mth::r(Mth::mul(Mth::load(m, i), beta1));
    mv = Mth::add_scaled(mv, gv, omb1.v);
    M vv = Mth::r(Mth::mul(Mth::load(v, i), beta2));
    vv = Mth::addcmul(vv, omb2, gv, gv);
    Mth::store(m, i, mv);
    Mth::store(v, i, vv);
    s.s[0][j] = vv;
    s.k[0][j] = pv;
    s.k[1][j] = mv;
  }
  template <int V, class S>
  EMBER_HOST_DEVICE void second(int64_t i, int j, const S& s) const {
    const M corrected = Mth::r(s.k[1][j] / bc1);
    const M plain = Mth::r(Mth::mul(corrected, lr));
    M adaptive = Mth::r(s.s[0][j]);
    adaptive = Mth::r(adaptive + eps);
    adaptive = Mth::r(M(1) / adaptive);
    adaptive = Mth::r(Mth::mul(adaptive, bc2_sqrt));
    M scaled_upd = Mth::r(Mth::mul(plain, adaptive));
    scaled_upd = Mth::r(Mth::mul(scaled_upd, rect));
    const M upd = Mth::pick(rectified, scaled_upd, plain);
    Mth::store(p, i, Mth::add_scaled(s.k[0][j], upd, M(-1)));
  }
};

}  // namespace ember::kernels
