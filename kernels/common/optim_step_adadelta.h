// The fused Adadelta update's per-element math (AdadeltaStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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

}  // namespace ember::kernels
