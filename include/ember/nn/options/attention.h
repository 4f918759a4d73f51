// Options of MultiheadAttention and of F::multi_head_attention_forward (LibTorch's
// torch/nn/options/activation.h, with Python's batch_first and is_causal added):
//   nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(256,
//   4).dropout(0.1).batch_first(true));
#pragma once

#include <cstdint>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  /// Total dimension of the model (split across the heads: embed_dim / num_heads each).
  EMBER_ARG(int64_t, embed_dim);
  /// Number of parallel attention heads; must divide embed_dim.
  EMBER_ARG(int64_t, num_heads);
  /// Dropout probability on the attention weights (training only).
  EMBER_ARG(double, dropout) = 0.0;
  /// Biases on the input and output projections.
  EMBER_ARG(bool, bias) = true;
  /// Learned biases appended to the key and value sequences (one more key position).
  EMBER_ARG(bool, add_bias_kv) = false;
  /// A zero key and value appended to every sequence (one more key position).
  EMBER_ARG(bool, add_zero_attn) = false;
  /// Feature sizes of key and value (default embed_dim).
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
  /// Inputs and outputs as [batch, seq, feature] instead of [seq, batch, feature] (Python's).
  EMBER_ARG(bool, batch_first) = false;
};

namespace functional {

/// Options of F::multi_head_attention_forward (LibTorch's), whose inputs are [L, N, E] (or
/// unbatched [L, E]).
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads,
                                       Tensor in_proj_weight, Tensor in_proj_bias, Tensor bias_k,
                                       Tensor bias_v, bool add_zero_attn, double dropout_p,
                                       Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  EMBER_ARG(bool, training) = true;
  /// [N, S] (or [S] unbatched): true (bool) or -inf (float) keys are ignored.
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  /// [L, S] or [N·num_heads, L, S]: true (bool) positions may NOT attend; a float mask is added.
  EMBER_ARG(Tensor, attn_mask) = {};
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;
  /// Python's hint that attn_mask is the causal mask: without weights or key padding, the
  /// attention runs causal (fused) instead of reading the mask.
  EMBER_ARG(bool, is_causal) = false;
};

}  // namespace functional
}  // namespace ember::nn
