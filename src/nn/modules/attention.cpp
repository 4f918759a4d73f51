// MultiheadAttention: PyTorch's parameters and initialisation; forward is
// F::multi_head_attention_forward after batch_first's transpose.
#include "ember/nn/modules/attention.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "src/core/check.h"

namespace ember::nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_)
    : options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim(), H = options.num_heads();
  EMBER_CHECK_VALUE(E > 0 && H > 0,
                    "MultiheadAttention: embed_dim and num_heads must be > 0, got "
                    "{} and {}",
                    E, H);
  EMBER_CHECK_VALUE(E % H == 0,
                    "MultiheadAttention: embed_dim must be divisible by num_heads, "
                    "got {} and {}",
                    E, H);
  EMBER_CHECK_VALUE(options.dropout() >= 0 && options.dropout() <= 1,
                    "MultiheadAttention: dropout must be in [0, 1], got {}", options.dropout());
  head_dim = E / H;
  _qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  // Registration order is Python's, so named_parameters() and state_dict() list the same keys.
  if (_qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * E, E}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", empty({E, options.vdim()}));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", empty({3 * E}));
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, E}));
    bias_v = register_parameter("bias_v", empty({1, 1, E}));
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  NoGradGuard no_grad;
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights, bool is_causal) {
  const bool batched = query.dim() == 3;
  Tensor q = query, k = key, v = value;
  if (options.batch_first() && batched) {
    // Keep q, k and v the same tensor where they were (self-attention projects once).
    q = query.transpose(0, 1);
    k = key.is_same(query) ? q : key.transpose(0, 1);
    v = value.is_same(key) ? k : value.is_same(query) ? q : value.transpose(0, 1);
  }
  namespace F = functional;
  F::MultiheadAttentionForwardFuncOptions o(
      options.embed_dim(), options.num_heads(), in_proj_weight, in_proj_bias, bias_k, bias_v,
      options.add_zero_attn(), options.dropout(), out_proj->weight, out_proj->bias);
  o.training(is_training())
      .key_padding_mask(key_padding_mask)
      .need_weights(need_weights)
      .attn_mask(attn_mask)
      .average_attn_weights(average_attn_weights)
      .is_causal(is_causal);
  if (!_qkv_same_embed_dim) {
    o.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  }
  auto [out, weights] = F::multi_head_attention_forward(q, k, v, o);
  if (options.batch_first() && batched) out = out.transpose(0, 1);
  return {out, weights};
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::MultiheadAttention(embed_dim=" << options.embed_dim()
         << ", num_heads=" << options.num_heads() << ", dropout=" << options.dropout()
         << ", bias=" << options.bias() << ", batch_first=" << options.batch_first() << ")";
}

}  // namespace ember::nn
