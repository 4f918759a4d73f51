// The fused SGD update's per-element math (SgdStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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

}  // namespace ember::kernels
