// The fused RAdam update's per-element math (RadamStep), for the CPU and CUDA drivers;
// the stage protocol and the arithmetic rules are in kernels/common/optim_math.h.
#pragma once

#include "kernels/common/optim_math.h"

namespace ember::kernels {

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
