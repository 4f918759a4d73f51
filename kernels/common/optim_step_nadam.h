// The fused NAdam update's per-element math (NadamStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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

}  // namespace ember::kernels
