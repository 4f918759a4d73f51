#include "model.h"

#include <vector>

namespace char_lm {

namespace nn = ember::nn;

CharLSTMImpl::CharLSTMImpl(int64_t vocab) {
  embed = register_module("embed", nn::Embedding(vocab, 64));
  lstm = register_module(
      "lstm", nn::LSTM(nn::LSTMOptions(64, 256).num_layers(2).dropout(0.1).batch_first(true)));
  dropout = register_module("dropout", nn::Dropout(0.1));
  head = register_module("head", nn::Linear(256, vocab));
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> CharLSTMImpl::forward(
    const Tensor& ids, std::optional<std::tuple<Tensor, Tensor>> state) {
  auto [out, next] = lstm->forward(embed->forward(ids), std::move(state));
  return {head->forward(dropout->forward(out)), next};
}

CharTransformerImpl::CharTransformerImpl(int64_t vocab, int64_t context_) : context(context_) {
  const int64_t d = 128;
  embed = register_module("embed", nn::Embedding(vocab, d));
  position = register_module("position", nn::Embedding(context, d));
  auto layer = nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(d, 4)
                                               .dim_feedforward(4 * d)
                                               .dropout(0.1)
                                               .activation(ember::kGELU)
                                               .batch_first(true)
                                               .norm_first(true));
  encoder = register_module("encoder", nn::TransformerEncoder(layer, 3));
  norm = register_module("norm", nn::LayerNorm(nn::LayerNormOptions({d})));
  head = register_module("head", nn::Linear(d, vocab));
}

Tensor CharTransformerImpl::forward(const Tensor& ids) {
  const int64_t T = ids.size(1);
  const Tensor pos = ember::arange(T, ember::TensorOptions().device(ids.device()));
  const Tensor h = embed->forward(ids) + position->forward(pos);
  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(T).to(ids.device());
  return head->forward(norm->forward(encoder->forward(h, mask, {}, /*is_causal=*/true)));
}

CharModel make_model(const std::string& kind, int64_t vocab, int64_t context) {
  CharModel m;
  if (kind == "lstm") {
    CharLSTM lstm(vocab);
    m.module = lstm.ptr();
    m.logits = [lstm](const Tensor& ids) mutable { return std::get<0>(lstm->forward(ids)); };
    auto state = std::make_shared<std::optional<std::tuple<Tensor, Tensor>>>();
    m.reset = [state] { state->reset(); };
    m.step = [lstm, state](int64_t id) mutable {
      const Tensor x = ember::full({1, 1}, id, ember::kInt64);
      auto [logits, next] = lstm->forward(x, *state);
      *state = next;
      return logits.view({-1});
    };
    return m;
  }
  CharTransformer tf(vocab, context);
  m.module = tf.ptr();
  m.logits = [tf](const Tensor& ids) mutable { return tf->forward(ids); };
  auto seen = std::make_shared<std::vector<int64_t>>();
  m.reset = [seen] { seen->clear(); };
  m.step = [tf, seen](int64_t id) mutable {
    seen->push_back(id);
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(seen->size()), tf->context);
    Tensor x = ember::empty({1, n}, ember::kInt64);
    std::copy(seen->end() - n, seen->end(), x.data_ptr<int64_t>());
    return tf->forward(x).select(1, n - 1).view({-1});
  };
  return m;
}

}  // namespace char_lm
