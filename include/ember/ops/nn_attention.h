// Scaled dot-product attention with LibTorch 2.x's ATen signature and PyTorch 2.x's semantics:
//   Tensor out = ember::scaled_dot_product_attention(q, k, v);              // softmax(q·kᵀ/√E)·v
//   out = ember::scaled_dot_product_attention(q, k, v, mask, 0.0, false);   // bool or additive
//   out = ember::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
//   out = ember::scaled_dot_product_attention(q, k8, v8, {}, 0.0, false, {}, /*enable_gqa=*/true);
// q [..., L, E], k [..., S, E], v [..., S, Ev] -> [..., L, Ev]. attn_mask broadcasts to
// [..., L, S]: bool (true = takes part) or of q's dtype (added to the scores). A row where no
// key takes part gives 0 (PyTorch's math path since 2.5). With enable_gqa, q's head dim (-3) may
// be a multiple of k's and v's: query head h reads key/value head h / (Hq / Hk).
//
// The backend is chosen per call: the fused CPU kernel (tiled, online softmax; never stores the
// [L, S] scores; forward and backward) where it applies, else the math composition. A scoped
// ember::nn::attention::sdpa_kernel guard (ember/nn/attention.h) restricts the choice.
#pragma once

#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

/// The attention backends (LibTorch 2.x's at::SDPBackend, with our k-spellings beside them).
/// flash_attention is the fused tiled kernel (on the CPU as in PyTorch); efficient_attention and
/// cudnn_attention name CUDA kernels Ember does not have yet.
enum class SDPBackend {
  error = -1,
  math = 0,
  flash_attention = 1,
  efficient_attention = 2,
  cudnn_attention = 3,
  overrideable = 4,
  kMath = math,
  kFlash = flash_attention,
  kEfficient = efficient_attention,
  kCudnn = cudnn_attention,
  kOverrideable = overrideable,
};

EMBER_API Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                              const Tensor& value,
                                              const std::optional<Tensor>& attn_mask = {},
                                              double dropout_p = 0.0, bool is_causal = false,
                                              std::optional<double> scale = std::nullopt,
                                              bool enable_gqa = false);

/// The backend scaled_dot_product_attention would run for these arguments on this thread
/// (ATen's _fused_sdp_choice, as an enum); throws as the call would when none applies.
EMBER_API SDPBackend _fused_sdp_choice(const Tensor& query, const Tensor& key, const Tensor& value,
                                       const std::optional<Tensor>& attn_mask = {},
                                       double dropout_p = 0.0, bool is_causal = false,
                                       std::optional<double> scale = std::nullopt,
                                       bool enable_gqa = false);

/// LibTorch 1.13's private form (the §5 attention workload of benchmarks uses it): the output and,
/// with need_attn_weights, the attention weights (else an undefined tensor).
EMBER_API std::tuple<Tensor, Tensor> _scaled_dot_product_attention(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const std::optional<Tensor>& attn_mask = {}, double dropout_p = 0.0,
    bool need_attn_weights = false, bool is_causal = false);

}  // namespace ember
