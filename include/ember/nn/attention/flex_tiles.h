// How FlexAttention's user callables reach the tiled kernel without a call per element: the
// templates below are instantiated in the caller's translation unit for the callable's own type,
// so score_mod and mask_mod inline into loops over a whole tile, and the kernel (a dispatcher
// row, kernels/cpu/flex_attention_kernels.cpp) makes one indirect call per tile through FlexMods.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "ember/nn/attention/flex_score.h"

namespace ember::nn::attention::detail {

/// Rows [q0, q0 + m) × keys [k0, k0 + n) of one (batch b, query head h): s[r·ld + j] is the score
/// of query q0 + r and key k0 + j.
template <class A>
struct FlexTile {
  A* s;
  int64_t ld;
  int64_t b, h, q0, m, k0, n;
};

/// Where backward's score_mod calls leave the gradients of captured elements: one float64 buffer
/// per table flex_attention found (tables[i] ↔ grads[i]), the worker's own, or with `atomic`
/// one shared by every worker (tables too large to copy per thread). `errors` gathers kFlexErr*
/// bits.
struct FlexGradSink {
  const CapturedState* const* tables = nullptr;
  double* const* grads = nullptr;
  int count = 0;
  int errors = 0;
  bool atomic = false;
};

constexpr int kFlexErrUnknownTable = 1;  // a read of a table the probe did not find
constexpr int kFlexErrTooManyReads = 2;  // more than ScoreDual::kMaxTerms reads in one score

/// The tile functions of one flex_attention call, all optional (null: identity / no mask).
struct FlexMods {
  std::shared_ptr<const void> score_mod, mask_mod;  // the callables, kept alive for backward
  void (*score_f)(const void*, const FlexTile<float>&) = nullptr;
  void (*score_d)(const void*, const FlexTile<double>&) = nullptr;
  /// Backward: t.s holds dL/d(modified score); raw the scaled scores (row stride t.ld). Replaces
  /// t.s with dL/d(scaled score) and adds into the sink. Null when score_mod cannot take a
  /// ScoreDual (then the call cannot be differentiated).
  void (*score_grad_f)(const void*, const FlexTile<float>&, const float* raw,
                       FlexGradSink&) = nullptr;
  void (*score_grad_d)(const void*, const FlexTile<double>&, const double* raw,
                       FlexGradSink&) = nullptr;
  /// The tables score_mod reads at (b, h, q_idx, kv_idx), found from a ScoreDual call.
  void (*probe)(const void*, int64_t b, int64_t h, int64_t q, int64_t kv,
                std::vector<const CapturedState*>& found) = nullptr;
  void (*mask_f)(const void*, const FlexTile<float>&) = nullptr;
  void (*mask_d)(const void*, const FlexTile<double>&) = nullptr;
};

template <class R>
double flex_value(const R& r) {
  return static_cast<double>(r);
}

/// score_mod over a tile whose masked positions already hold -inf (the kernel masks first):
/// those are left alone, as their weight is 0 whatever score_mod says, so a score_mod is never
/// asked about positions the mask excludes (a table sized to a window is not read out of it).
template <class F, class A>
void score_tile(const void* fn, const FlexTile<A>& t) {
  const F& mod = *static_cast<const F*>(fn);
  const A masked = -std::numeric_limits<A>::infinity();
  for (int64_t r = 0; r < t.m; ++r) {
    A* s = t.s + r * t.ld;
    for (int64_t j = 0; j < t.n; ++j)
      if (s[j] != masked)
        s[j] = static_cast<A>(flex_value(mod(s[j], t.b, t.h, t.q0 + r, t.k0 + j)));
  }
}

inline void atomic_add(double* p, double v) {
  double old, next;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do {
    next = old + v;
  } while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

inline void sink_add(FlexGradSink& sink, const ScoreDual::Term& term, double g) {
  if (term.index < 0) return;  // an out-of-range read, already flagged
  for (int i = 0; i < sink.count; ++i)
    if (sink.tables[i] == term.table) {
      double* at = sink.grads[i] + term.index;
      if (sink.atomic)
        atomic_add(at, g * term.coef);
      else
        *at += g * term.coef;
      return;
    }
  sink.errors |= kFlexErrUnknownTable;
}

template <class F, class A>
void score_grad_tile(const void* fn, const FlexTile<A>& t, const A* raw, FlexGradSink& sink) {
  const F& mod = *static_cast<const F*>(fn);
  for (int64_t r = 0; r < t.m; ++r) {
    A* ds = t.s + r * t.ld;
    const A* x = raw + r * t.ld;
    for (int64_t j = 0; j < t.n; ++j) {
      const A g = ds[j];
      if (g == A(0)) continue;  // masked, or a weight of 0: nothing flows back
      const ScoreDual y(mod(ScoreDual::score(x[j]), t.b, t.h, t.q0 + r, t.k0 + j));
      ds[j] = static_cast<A>(g * y.d_score);
      for (int i = 0; i < y.terms; ++i) sink_add(sink, y.term[i], g);
      if (y.overflow) sink.errors |= kFlexErrTooManyReads;
    }
  }
}

template <class F>
void probe_tables(const void* fn, int64_t b, int64_t h, int64_t q, int64_t kv,
                  std::vector<const CapturedState*>& found) {
  const F& mod = *static_cast<const F*>(fn);
  const ScoreDual y(mod(ScoreDual::score(0.0), b, h, q, kv));
  for (int i = 0; i < y.terms; ++i) {
    bool known = false;
    for (const CapturedState* t : found) known = known || t == y.term[i].table;
    if (!known) found.push_back(y.term[i].table);
  }
}

template <class F, class A>
void mask_tile(const void* fn, const FlexTile<A>& t) {
  const F& mask = *static_cast<const F*>(fn);
  for (int64_t r = 0; r < t.m; ++r) {
    A* s = t.s + r * t.ld;
    for (int64_t j = 0; j < t.n; ++j)
      if (!mask(t.b, t.h, t.q0 + r, t.k0 + j)) s[j] = -std::numeric_limits<A>::infinity();
  }
}

template <class F>
constexpr bool takes_score_dual =
    std::is_invocable_v<const F&, ScoreDual, int64_t, int64_t, int64_t, int64_t>;

/// The score_mod half of FlexMods for a callable of type F (nullptr_t: none).
template <class F>
void set_score_mod(FlexMods& mods, F score_mod) {
  if constexpr (!std::is_same_v<F, std::nullptr_t>) {
    static_assert(std::is_invocable_v<const F&, float, int64_t, int64_t, int64_t, int64_t>,
                  "flex_attention: score_mod must be callable as (score, b, h, q_idx, kv_idx)");
    mods.score_mod = std::make_shared<const F>(std::move(score_mod));
    mods.score_f = &score_tile<F, float>;
    mods.score_d = &score_tile<F, double>;
    if constexpr (takes_score_dual<F>) {
      mods.score_grad_f = &score_grad_tile<F, float>;
      mods.score_grad_d = &score_grad_tile<F, double>;
      mods.probe = &probe_tables<F>;
    }
  }
}

}  // namespace ember::nn::attention::detail
