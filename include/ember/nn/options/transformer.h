// Options of the Transformer layers (LibTorch's torch/nn/options/transformerlayer.h), with
// Python's later additions (batch_first, norm_first, layer_norm_eps, bias). The options of the
// stacks, which hold a layer, are in ember/nn/modules/transformer.h.
//   nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(256, 4)
//                                         .dim_feedforward(1024).dropout(0.0).norm_first(true));
//   nn::TransformerEncoder enc(nn::TransformerEncoderOptions(layer, 6).norm(
//       nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({256})))));
#pragma once

#include <cstdint>
#include <functional>
#include <variant>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

/// The feed-forward activation: relu, gelu, or any callable.
using activation_t =
    std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;

struct TransformerEncoderLayerOptions {
  /* implicit */ TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  /// Number of expected features of the input.
  EMBER_ARG(int64_t, d_model);
  /// Number of attention heads.
  EMBER_ARG(int64_t, nhead);
  /// Width of the feed-forward network.
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = ember::kReLU;
  /// eps of the layer norms.
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  /// [batch, seq, feature] instead of [seq, batch, feature].
  EMBER_ARG(bool, batch_first) = false;
  /// Layer norm before attention and feed-forward (pre-norm) instead of after (post-norm).
  EMBER_ARG(bool, norm_first) = false;
  /// Biases in the linear layers and attention projections.
  EMBER_ARG(bool, bias) = true;
};

struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = ember::kReLU;
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
  EMBER_ARG(bool, bias) = true;
};

}  // namespace ember::nn
