// The fused RMSprop update's per-element math (RmspropStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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

}  // namespace ember::kernels
