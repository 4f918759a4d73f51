// LibTorch's attention and Transformer API, written as LibTorch programs write it:
// torch::nn::MultiheadAttention with its Options and forward defaults,
// F::multi_head_attention_forward with MultiheadAttentionForwardFuncOptions, the Transformer
// layers and stacks with their Options (a LayerNorm as the stack's AnyModule norm), and
// Transformer::generate_square_subsequent_mask as the causal float mask. Only forms whose meaning
// LibTorch 1.13 shares are used (no bool masks: its C++ MultiheadAttention adds them as +1), so
// the file also builds and passes against LibTorch 1.13.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <tuple>
#include <vector>

namespace libtorch_transformer_test {

namespace F = torch::nn::functional;

TEST(LibTorchTransformer, MultiheadAttentionAsLibTorchProgramsUseIt) {
  torch::manual_seed(0);
  torch::nn::MultiheadAttention mha(torch::nn::MultiheadAttentionOptions(8, 2).dropout(0.0));
  torch::Tensor x = torch::randn({5, 3, 8});
  auto [out, weights] = mha->forward(x, x, x);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{5, 3, 8}));
  EXPECT_EQ(weights.sizes(), (std::vector<int64_t>{3, 5, 5}));
  EXPECT_TRUE(torch::allclose(weights.sum(-1), torch::ones({3, 5}), 1e-5, 1e-6));
  EXPECT_EQ(mha->named_parameters().size(), 4u);  // in_proj_weight/bias, out_proj.weight/bias
  // The functional form with the module's weights gives the same result.
  auto [fout, fweights] = F::multi_head_attention_forward(
      x, x, x,
      F::MultiheadAttentionForwardFuncOptions(8, 2, mha->in_proj_weight, mha->in_proj_bias,
                                              mha->bias_k, mha->bias_v, false, 0.0,
                                              mha->out_proj->weight, mha->out_proj->bias)
          .training(false));
  EXPECT_TRUE(torch::allclose(fout, out, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(fweights, weights, 1e-5, 1e-6));
}

TEST(LibTorchTransformer, LayersStacksAndTheCausalMask) {
  torch::manual_seed(1);
  torch::nn::TransformerEncoderLayer layer(
      torch::nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0));
  torch::nn::TransformerEncoder encoder(torch::nn::TransformerEncoderOptions(layer, 2).norm(
      torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({8})))));
  torch::Tensor src = torch::randn({6, 2, 8});
  torch::Tensor mask = torch::nn::TransformerImpl::generate_square_subsequent_mask(6);
  EXPECT_EQ(mask.sizes(), (std::vector<int64_t>{6, 6}));
  torch::Tensor memory = encoder->forward(src, mask);
  EXPECT_EQ(memory.sizes(), src.sizes());
  // Causal: the first positions do not see the later ones.
  torch::Tensor changed = src.clone();
  changed[5] = torch::randn({2, 8});
  EXPECT_TRUE(torch::allclose(encoder->forward(changed, mask).slice(0, 0, 5), memory.slice(0, 0, 5),
                              1e-5, 1e-6));

  torch::nn::TransformerDecoderLayer dlayer(
      torch::nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0));
  torch::nn::TransformerDecoder decoder(torch::nn::TransformerDecoderOptions(dlayer, 1));
  torch::Tensor tgt = torch::randn({4, 2, 8});
  EXPECT_EQ(decoder->forward(tgt, memory).sizes(), tgt.sizes());

  torch::nn::Transformer model(torch::nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16));
  torch::Tensor y =
      model->forward(src, tgt, {}, torch::nn::TransformerImpl::generate_square_subsequent_mask(4));
  EXPECT_EQ(y.sizes(), tgt.sizes());
  y.sum().backward();
  for (const auto& p : model->parameters()) EXPECT_TRUE(p.grad().defined());
}

}  // namespace libtorch_transformer_test
