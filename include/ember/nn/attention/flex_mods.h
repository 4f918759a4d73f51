// Ready-made FlexAttention callables: the masks and score modifications of the FlexAttention
// paper and attention-gym, as small function objects (so they inline into the kernel like a
// lambda), plus Python's and_masks / or_masks / noop_mask.
//   auto mask = create_block_mask(and_masks(causal_mask(), sliding_window_mask(256)),
//                                 std::nullopt, std::nullopt, L, L);
//   Tensor out = flex_attention(q, k, v, alibi(alibi_slopes(heads)), mask);
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

#include "ember/core/tensor.h"
#include "ember/nn/attention/flex_score.h"

namespace ember::nn::attention {

// ---- mask_mods: (b, h, q_idx, kv_idx) -> bool, true where the position takes part ----------

/// Every position (Python's noop_mask).
struct NoopMask {
  bool operator()(int64_t, int64_t, int64_t, int64_t) const { return true; }
};
inline NoopMask noop_mask() { return {}; }

/// Key kv_idx <= q_idx (top-left aligned, as is_causal).
struct CausalMask {
  bool operator()(int64_t, int64_t, int64_t q, int64_t kv) const { return q >= kv; }
};
inline CausalMask causal_mask() { return {}; }

/// Causal, and at most `window` keys back: q_idx - window <= kv_idx <= q_idx.
struct SlidingWindowMask {
  int64_t window;
  bool operator()(int64_t, int64_t, int64_t q, int64_t kv) const {
    return q >= kv && q - kv <= window;
  }
};
inline SlidingWindowMask sliding_window_mask(int64_t window) { return {window}; }

/// Prefix-LM: the first `prefix` keys are seen by every query (bidirectional), the rest causally.
struct PrefixLMMask {
  int64_t prefix;
  bool operator()(int64_t, int64_t, int64_t q, int64_t kv) const { return kv < prefix || q >= kv; }
};
inline PrefixLMMask prefix_lm_mask(int64_t prefix) { return {prefix}; }

/// Document masking for packed sequences: a query sees only keys of its own document.
/// document_ids: int64 [positions] on the CPU, covering every query and key index; the object
/// keeps it alive. Combine with causal_mask() through and_masks for causal documents.
struct DocumentMask {
  Tensor ids;  // contiguous int64, kept alive for backward
  const int64_t* id;
  bool operator()(int64_t, int64_t, int64_t q, int64_t kv) const { return id[q] == id[kv]; }
};
EMBER_API DocumentMask document_mask(const Tensor& document_ids);

/// Both masks (Python's and_masks).
template <class A, class B>
struct AndMask {
  A a;
  B b;
  bool operator()(int64_t bb, int64_t h, int64_t q, int64_t kv) const {
    return a(bb, h, q, kv) && b(bb, h, q, kv);
  }
};
template <class A, class B>
AndMask<A, B> and_masks(A a, B b) {
  return {std::move(a), std::move(b)};
}

/// Either mask (Python's or_masks).
template <class A, class B>
struct OrMask {
  A a;
  B b;
  bool operator()(int64_t bb, int64_t h, int64_t q, int64_t kv) const {
    return a(bb, h, q, kv) || b(bb, h, q, kv);
  }
};
template <class A, class B>
OrMask<A, B> or_masks(A a, B b) {
  return {std::move(a), std::move(b)};
}

// ---- score_mods: (score, b, h, q_idx, kv_idx) -> score, differentiable ------------------------

/// ALiBi: score + slopes[h]·(kv_idx − q_idx). `slopes` [heads] may be learned (requires grad).
struct Alibi {
  Captured slopes;
  template <class S>
  auto operator()(S score, int64_t, int64_t h, int64_t q, int64_t kv) const {
    return score + slopes(h) * (kv - q);
  }
};
inline Alibi alibi(const Tensor& slopes) { return {Captured(slopes)}; }
/// The fixed slopes of the ALiBi paper: 2^(−8(h+1)/heads), float32 [heads].
EMBER_API Tensor alibi_slopes(int64_t heads);

/// Relative position bias: score + table[h][q_idx − kv_idx + max_distance], the table
/// [heads, 2·max_distance + 1] usually learned. max_distance must cover |q_idx − kv_idx|.
struct RelativePositionBias {
  Captured table;
  int64_t max_distance;
  template <class S>
  auto operator()(S score, int64_t, int64_t h, int64_t q, int64_t kv) const {
    return score + table(h, q - kv + max_distance);
  }
};
EMBER_API RelativePositionBias relative_position_bias(const Tensor& table);

/// tanh soft-capping (Gemma 2, Grok): cap·tanh(score / cap) keeps scores in (−cap, cap).
struct TanhSoftcap {
  double cap;
  template <class S>
  auto operator()(S score, int64_t, int64_t, int64_t, int64_t) const {
    return cap * tanh(score / cap);
  }
};
inline TanhSoftcap tanh_softcap(double cap) { return {cap}; }

}  // namespace ember::nn::attention
