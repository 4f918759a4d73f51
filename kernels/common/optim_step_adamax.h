// The fused Adamax update's per-element math (AdamaxStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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

}  // namespace ember::kernels
