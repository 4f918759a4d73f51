// The Transformer family (LibTorch's torch/nn/modules/transformer*.h) with Python's semantics and
// parameter names (self_attn.in_proj_weight, linear1.weight, norm1.bias, layers.0...., so
// state_dicts move to and from Python):
//   nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(256, 4).dropout(0.0));
//   Tensor y = layer(x);                                   // x [S, N, 256]
//   nn::TransformerEncoder enc(nn::TransformerEncoderOptions(layer, 6));
//   Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(S);
//   Tensor z = enc(x, mask);
// Attention runs through MultiheadAttention without weights, so on the fused SDPA kernel.
#pragma once

#include <cstdint>

#include "ember/nn/cloneable.h"
#include "ember/nn/forward_defaults.h"
#include "ember/nn/modules/attention.h"
#include "ember/nn/modules/container/any.h"
#include "ember/nn/modules/container/module_list.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/options/transformer.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_);

  /// src [S, N, E] (or [N, S, E] with batch_first, or [S, E]); src_mask [S, S] or
  /// [N·nhead, S, S] and src_key_padding_mask [N, S] as MultiheadAttention's masks. is_causal:
  /// src_mask is the causal mask (Python's hint).
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {}, bool is_causal = false);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ember::nn::AnyValue(Tensor())},
                                 {2, ember::nn::AnyValue(Tensor())},
                                 {3, ember::nn::AnyValue(false)})

 public:
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

class EMBER_API TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options_);

  /// tgt [T, N, E], memory [S, N, E] (batch first with batch_first).
  Tensor forward(Tensor tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}, bool tgt_is_causal = false,
                 bool memory_is_causal = false);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, ember::nn::AnyValue(Tensor())},
                                 {3, ember::nn::AnyValue(Tensor())},
                                 {4, ember::nn::AnyValue(Tensor())},
                                 {5, ember::nn::AnyValue(Tensor())},
                                 {6, ember::nn::AnyValue(false)}, {7, ember::nn::AnyValue(false)})

 public:
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  MultiheadAttention multihead_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  LayerNorm norm3 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
  Dropout dropout3 = nullptr;
};
EMBER_MODULE(TransformerDecoderLayer);

/// Options of TransformerEncoder: num_layers deep copies of encoder_layer, then `norm` if given.
struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options,
                            int64_t num_layers)
      : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}
  EMBER_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);
};

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options,
                            int64_t num_layers)
      : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}
  EMBER_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);
};

class EMBER_API TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options_);

  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {}, bool is_causal = false);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ember::nn::AnyValue(Tensor())},
                                 {2, ember::nn::AnyValue(Tensor())},
                                 {3, ember::nn::AnyValue(false)})

 public:
  void reset() override;
  void reset_parameters();

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerEncoder);

class EMBER_API TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options_);

  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}, bool tgt_is_causal = false,
                 bool memory_is_causal = false);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, ember::nn::AnyValue(Tensor())},
                                 {3, ember::nn::AnyValue(Tensor())},
                                 {4, ember::nn::AnyValue(Tensor())},
                                 {5, ember::nn::AnyValue(Tensor())},
                                 {6, ember::nn::AnyValue(false)}, {7, ember::nn::AnyValue(false)})

 public:
  void reset() override;
  void reset_parameters();

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerDecoder);

/// Options of Transformer (LibTorch's TransformerOptions, with Python's additions).
struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers,
                     int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  EMBER_ARG(int64_t, d_model) = 512;
  EMBER_ARG(int64_t, nhead) = 8;
  EMBER_ARG(int64_t, num_encoder_layers) = 6;
  EMBER_ARG(int64_t, num_decoder_layers) = 6;
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = ember::kReLU;
  /// Replace the encoder or decoder stack (forward(src, mask, key_padding_mask) and
  /// forward(tgt, memory, tgt_mask, memory_mask, tgt_kpm, memory_kpm)).
  EMBER_ARG(AnyModule, custom_encoder);
  EMBER_ARG(AnyModule, custom_decoder);
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
  EMBER_ARG(bool, bias) = true;
};

class EMBER_API TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options_);

  /// src [S, N, E], tgt [T, N, E] (batch first with batch_first) -> [T, N, E].
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, ember::nn::AnyValue(Tensor())},
                                 {3, ember::nn::AnyValue(Tensor())},
                                 {4, ember::nn::AnyValue(Tensor())},
                                 {5, ember::nn::AnyValue(Tensor())},
                                 {6, ember::nn::AnyValue(Tensor())},
                                 {7, ember::nn::AnyValue(Tensor())})

 public:
  void reset() override;
  /// PyTorch's initialisation of the whole model: xavier_uniform_ on every parameter of rank > 1.
  void reset_parameters();

  /// [sz, sz] float: 0 on and below the diagonal, -inf above (a position sees itself and the
  /// past).
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
EMBER_MODULE(Transformer);

}  // namespace ember::nn
