// The Transformer family: Python's layer structure (post-norm or pre-norm residual blocks around
// self-attention, cross-attention and a two-layer feed-forward network), registration order and
// initialisation.
#include "ember/nn/modules/transformer.h"

#include <ostream>
#include <utility>
#include <variant>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/init.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"

namespace ember::nn {
namespace {

Tensor activate(const activation_t& a, const Tensor& x) {
  if (std::holds_alternative<enumtype::kReLU>(a)) return functional::relu(x);
  if (std::holds_alternative<enumtype::kGELU>(a)) return gelu(x);
  return std::get<std::function<Tensor(const Tensor&)>>(a)(x);
}

const char* activation_name(const activation_t& a) {
  return std::holds_alternative<enumtype::kReLU>(a)   ? "relu"
         : std::holds_alternative<enumtype::kGELU>(a) ? "gelu"
                                                      : "<callable>";
}

MultiheadAttention make_attention(int64_t d_model, int64_t nhead, double dropout, bool bias,
                                  bool batch_first) {
  return MultiheadAttention(MultiheadAttentionOptions(d_model, nhead)
                                .dropout(dropout)
                                .bias(bias)
                                .batch_first(batch_first));
}

LayerNorm make_norm(int64_t d_model, double eps, bool bias) {
  return LayerNorm(LayerNormOptions({d_model}).eps(eps).bias(bias));
}

/// The attention part of a block: output only (no weights), so it runs on the fused kernel.
Tensor attend(MultiheadAttention& attn, const Tensor& q, const Tensor& kv, const Tensor& mask,
              const Tensor& key_padding_mask, bool is_causal) {
  return std::get<0>(attn->forward(q, kv, kv, key_padding_mask, /*need_weights=*/false, mask,
                                   /*average_attn_weights=*/true, is_causal));
}

}  // namespace

// ---- TransformerEncoderLayer ----

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(
    const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module(
      "self_attn", make_attention(o.d_model(), o.nhead(), o.dropout(), o.bias(), o.batch_first()));
  linear1 = register_module("linear1",
                            Linear(LinearOptions(o.d_model(), o.dim_feedforward()).bias(o.bias())));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2",
                            Linear(LinearOptions(o.dim_feedforward(), o.d_model()).bias(o.bias())));
  norm1 = register_module("norm1", make_norm(o.d_model(), o.layer_norm_eps(), o.bias()));
  norm2 = register_module("norm2", make_norm(o.d_model(), o.layer_norm_eps(), o.bias()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask, bool is_causal) {
  auto sa = [&](const Tensor& x) {
    return dropout1(attend(self_attn, x, x, src_mask, src_key_padding_mask, is_causal));
  };
  auto ff = [&](const Tensor& x) {
    return dropout2(linear2(dropout(activate(options.activation(), linear1(x)))));
  };
  Tensor x = src;
  if (options.norm_first()) {
    x = x + sa(norm1(x));
    return x + ff(norm2(x));
  }
  x = norm1(x + sa(x));
  return norm2(x + ff(x));
}

void TransformerEncoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::TransformerEncoderLayer(d_model=" << options.d_model()
         << ", nhead=" << options.nhead() << ", dim_feedforward=" << options.dim_feedforward()
         << ", dropout=" << options.dropout()
         << ", activation=" << activation_name(options.activation())
         << ", norm_first=" << options.norm_first() << ")";
}

// ---- TransformerDecoderLayer ----

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(
    const TransformerDecoderLayerOptions& options_)
    : options(options_) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module(
      "self_attn", make_attention(o.d_model(), o.nhead(), o.dropout(), o.bias(), o.batch_first()));
  multihead_attn = register_module(
      "multihead_attn",
      make_attention(o.d_model(), o.nhead(), o.dropout(), o.bias(), o.batch_first()));
  linear1 = register_module("linear1",
                            Linear(LinearOptions(o.d_model(), o.dim_feedforward()).bias(o.bias())));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2",
                            Linear(LinearOptions(o.dim_feedforward(), o.d_model()).bias(o.bias())));
  norm1 = register_module("norm1", make_norm(o.d_model(), o.layer_norm_eps(), o.bias()));
  norm2 = register_module("norm2", make_norm(o.d_model(), o.layer_norm_eps(), o.bias()));
  norm3 = register_module("norm3", make_norm(o.d_model(), o.layer_norm_eps(), o.bias()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
  dropout3 = register_module("dropout3", Dropout(o.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  multihead_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::forward(Tensor tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask,
                                            bool tgt_is_causal, bool memory_is_causal) {
  auto sa = [&](const Tensor& x) {
    return dropout1(attend(self_attn, x, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal));
  };
  auto mha = [&](const Tensor& x) {
    return dropout2(
        attend(multihead_attn, x, memory, memory_mask, memory_key_padding_mask, memory_is_causal));
  };
  auto ff = [&](const Tensor& x) {
    return dropout3(linear2(dropout(activate(options.activation(), linear1(x)))));
  };
  Tensor x = std::move(tgt);
  if (options.norm_first()) {
    x = x + sa(norm1(x));
    x = x + mha(norm2(x));
    return x + ff(norm3(x));
  }
  x = norm1(x + sa(x));
  x = norm2(x + mha(x));
  return norm3(x + ff(x));
}

void TransformerDecoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::TransformerDecoderLayer(d_model=" << options.d_model()
         << ", nhead=" << options.nhead() << ", dim_feedforward=" << options.dim_feedforward()
         << ", dropout=" << options.dropout()
         << ", activation=" << activation_name(options.activation())
         << ", norm_first=" << options.norm_first() << ")";
}

// ---- TransformerEncoder / TransformerDecoder ----

namespace {

/// A stack's registration, as Python's: "layers" holds num_layers deep copies of `layer`, then
/// the optional final norm is registered as "norm" (and kept in `norm`).
template <class LayerHolder>
ModuleList build_stack(Module& stack, const LayerHolder& layer, int64_t num_layers,
                       const AnyModule& norm_option, AnyModule& norm, const char* name) {
  EMBER_CHECK_VALUE(!layer.is_empty(), "{}: the layer to stack is empty", name);
  EMBER_CHECK_VALUE(num_layers >= 0, "{}: num_layers must be >= 0, got {}", name, num_layers);
  ModuleList layers = stack.register_module("layers", ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(layer->clone());
  norm = norm_option;
  if (!norm.is_empty()) stack.register_module("norm", norm.ptr());
  return layers;
}

template <class LayerImpl>
void reset_stack(const ModuleList& layers) {
  for (size_t i = 0; i < layers->size(); ++i) layers->ptr<LayerImpl>(i)->reset_parameters();
}

}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  layers = build_stack(*this, options.encoder_layer(), options.num_layers(), options.norm(), norm,
                       "TransformerEncoder");
}

void TransformerEncoderImpl::reset_parameters() {
  reset_stack<TransformerEncoderLayerImpl>(layers);
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask,
                                       const Tensor& src_key_padding_mask, bool is_causal) {
  Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i)
    x = layers->ptr<TransformerEncoderLayerImpl>(i)->forward(x, src_mask, src_key_padding_mask,
                                                             is_causal);
  return norm.is_empty() ? x : norm.forward(x);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  layers = build_stack(*this, options.decoder_layer(), options.num_layers(), options.norm(), norm,
                       "TransformerDecoder");
}

void TransformerDecoderImpl::reset_parameters() {
  reset_stack<TransformerDecoderLayerImpl>(layers);
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                       bool memory_is_causal) {
  Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    x = layers->ptr<TransformerDecoderLayerImpl>(i)->forward(
        x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
        tgt_is_causal, memory_is_causal);
  return norm.is_empty() ? x : norm.forward(x);
}

// ---- Transformer ----

namespace {

/// The options of Transformer's encoder or decoder layers, from the model's.
template <class LayerOptions>
LayerOptions layer_options(const TransformerOptions& o) {
  return LayerOptions(o.d_model(), o.nhead())
      .dim_feedforward(o.dim_feedforward())
      .dropout(o.dropout())
      .activation(o.activation())
      .layer_norm_eps(o.layer_norm_eps())
      .batch_first(o.batch_first())
      .norm_first(o.norm_first())
      .bias(o.bias());
}

}  // namespace

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) {
  reset();
}

void TransformerImpl::reset() {
  const auto& o = options;
  if (!o.custom_encoder().is_empty()) {
    encoder = o.custom_encoder();
  } else {
    TransformerEncoderLayer layer(layer_options<TransformerEncoderLayerOptions>(o));
    encoder = AnyModule(TransformerEncoder(
        TransformerEncoderOptions(layer, o.num_encoder_layers())
            .norm(AnyModule(make_norm(o.d_model(), o.layer_norm_eps(), o.bias())))));
  }
  register_module("encoder", encoder.ptr());
  if (!o.custom_decoder().is_empty()) {
    decoder = o.custom_decoder();
  } else {
    TransformerDecoderLayer layer(layer_options<TransformerDecoderLayerOptions>(o));
    decoder = AnyModule(TransformerDecoder(
        TransformerDecoderOptions(layer, o.num_decoder_layers())
            .norm(AnyModule(make_norm(o.d_model(), o.layer_norm_eps(), o.bias())))));
  }
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  NoGradGuard no_grad;
  for (Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) {
  const bool batched = src.dim() == 3;
  const int64_t batch_dim = options.batch_first() ? 0 : 1;
  EMBER_CHECK(src.dim() == tgt.dim() && (!batched || src.size(batch_dim) == tgt.size(batch_dim)),
              "Transformer: the batch number of src {} and tgt {} must be equal", src.sizes(),
              tgt.sizes());
  EMBER_CHECK(src.size(-1) == options.d_model() && tgt.size(-1) == options.d_model(),
              "Transformer: the feature number of src {} and tgt {} must be equal to d_model {}",
              src.sizes(), tgt.sizes(), options.d_model());
  Tensor memory = encoder.forward(src, src_mask, src_key_padding_mask);
  return decoder.forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                         memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK_VALUE(sz >= 0, "generate_square_subsequent_mask: size must be >= 0, got {}", sz);
  return full({sz, sz}, -std::numeric_limits<double>::infinity()).triu(1);
}

}  // namespace ember::nn
