// The two character models, written as a LibTorch user writes modules:
//  - CharLSTM: Embedding(V, 64) -> LSTM(64, 256, 2 layers, dropout 0.1, batch_first) -> Linear.
//  - CharTransformer: token + learned position embeddings (d_model 128) -> 3 pre-norm
//    TransformerEncoderLayers (4 heads, GELU, causal mask) -> LayerNorm -> Linear.
// CharModel gives the trainer one face for both: logits for a batch, and one-character steps
// for sampling.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "ember/ember.h"

namespace char_lm {

using ember::Tensor;

struct CharLSTMImpl : ember::nn::Module {
  explicit CharLSTMImpl(int64_t vocab);
  /// ids [B, T] -> logits [B, T, V], and the LSTM's final (h, c).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& ids, std::optional<std::tuple<Tensor, Tensor>> state = std::nullopt);

  ember::nn::Embedding embed{nullptr};
  ember::nn::LSTM lstm{nullptr};
  ember::nn::Dropout dropout{nullptr};
  ember::nn::Linear head{nullptr};
};
EMBER_MODULE(CharLSTM);

struct CharTransformerImpl : ember::nn::Module {
  CharTransformerImpl(int64_t vocab, int64_t context);
  /// ids [B, T] (T <= context) -> logits [B, T, V]; position t sees positions <= t only.
  Tensor forward(const Tensor& ids);

  int64_t context;
  ember::nn::Embedding embed{nullptr}, position{nullptr};
  ember::nn::TransformerEncoder encoder{nullptr};
  ember::nn::LayerNorm norm{nullptr};
  ember::nn::Linear head{nullptr};
};
EMBER_MODULE(CharTransformer);

struct CharModel {
  std::shared_ptr<ember::nn::Module> module;  // parameters, train/eval, save/load
  /// ids [B, T] -> logits [B, T, V].
  std::function<Tensor(const Tensor&)> logits;
  /// Sampling: start over, then feed one id at a time and get the next id's logits [V].
  std::function<void()> reset;
  std::function<Tensor(int64_t)> step;
};

/// "lstm" or "transformer" over `vocab` ids, with a context of `context` ids (Transformer).
CharModel make_model(const std::string& kind, int64_t vocab, int64_t context);

}  // namespace char_lm
