// The fused Adam and AdamW update's per-element math (AdamStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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

}  // namespace ember::kernels
