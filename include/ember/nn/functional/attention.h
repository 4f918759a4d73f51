// Functional attention (Python's torch.nn.functional.scaled_dot_product_attention, LibTorch's
// multi_head_attention_forward):
//   namespace F = ember::nn::functional;
//   Tensor out = F::scaled_dot_product_attention(q, k, v, mask, 0.1, false, {}, false);
//   auto [y, w] = F::multi_head_attention_forward(q, k, v, F::MultiheadAttentionForwardFuncOptions(
//       256, 4, in_w, in_b, {}, {}, false, 0.0, out_w, out_b));
// The arguments and semantics are ember::scaled_dot_product_attention's (ember/ops/nn_attention.h);
// dropout_p applies whenever it is above 0, as in Python (pass 0 in evaluation).
#pragma once

#include <optional>
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/options/attention.h"
#include "ember/ops/nn_attention.h"

namespace ember::nn::functional {

inline Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                           const Tensor& value,
                                           const std::optional<Tensor>& attn_mask = {},
                                           double dropout_p = 0.0, bool is_causal = false,
                                           std::optional<double> scale = std::nullopt,
                                           bool enable_gqa = false) {
  return ember::scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                             scale, enable_gqa);
}

/// Multi-head attention over [L, N, E] inputs (or unbatched [L, E]), Python's
/// F.multi_head_attention_forward: the output [L, N, E] and, with need_weights, the weights.
EMBER_API std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

}  // namespace ember::nn::functional
