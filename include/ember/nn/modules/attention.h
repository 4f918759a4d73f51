// MultiheadAttention (LibTorch's torch/nn/modules/activation.h) with Python's semantics where
// LibTorch 1.13's C++ port differs: bool masks mask (true = may not attend) rather than being
// added as 1, 3-D [N·num_heads, L, S] masks broadcast, kdim != vdim works, batch_first and
// is_causal exist. Parameter names are PyTorch's (in_proj_weight or q/k/v_proj_weight,
// in_proj_bias, bias_k, bias_v, out_proj.weight, out_proj.bias), so state_dicts move to and from
// Python.
//   nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(256, 4));
//   auto [out, weights] = mha->forward(x, x, x);            // x [L, N, 256]; weights [N, L, L]
//   auto [y, none] = mha->forward(x, x, x, pad, /*need_weights=*/false);  // fused SDPA
#pragma once

#include <tuple>

#include "ember/nn/cloneable.h"
#include "ember/nn/forward_defaults.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/options/attention.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options_);

  /// query [L, N, E] (or [N, L, E] with batch_first, or unbatched [L, E]), key [S, N, kdim],
  /// value [S, N, vdim]. Returns the output [L, N, E] and, with need_weights, the attention
  /// weights [N, L, S] (averaged over heads) or [N, num_heads, L, S]; else an undefined tensor.
  /// Without weights the attention runs through scaled_dot_product_attention (fused on the CPU).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true,
                                     bool is_causal = false);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({3, ember::nn::AnyValue(Tensor())}, {4, ember::nn::AnyValue(true)},
                                 {5, ember::nn::AnyValue(Tensor())}, {6, ember::nn::AnyValue(true)},
                                 {7, ember::nn::AnyValue(false)})

 public:
  void reset() override;
  /// PyTorch's initialisation: xavier_uniform_ input projections, zero biases, xavier_normal_
  /// bias_k and bias_v (out_proj.weight keeps Linear's).
  void _reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v;
  Linear out_proj = nullptr;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;
  int64_t head_dim = 0;
};

EMBER_MODULE(MultiheadAttention);

}  // namespace ember::nn
