// The fused Adagrad update's per-element math (AdagradStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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

}  // namespace ember::kernels
