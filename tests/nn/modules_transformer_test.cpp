// MultiheadAttention and the Transformer family beyond the golden cases: the weights path and the
// fused (no weights) path agree under every mask form; bool and additive masks agree; gradchecks;
// Python's state_dict keys; clone, Sequential/AnyModule calls with default arguments; errors.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/support/golden.h"

using namespace ember;

// A named namespace: the test sources are compiled as unity files.
namespace transformer_test {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MultiheadAttention, FusedPathEqualsWeightsPathUnderEveryMask) {
  manual_seed(1);
  const int64_t L = 5, S = 7, N = 3, E = 8, H = 2;
  Tensor q = randn({L, N, E}), k = randn({S, N, E}), v = randn({S, N, E});
  Tensor kpm = zeros({N, S}, kBool);
  kpm.index_put_({0, 6}, true);
  kpm.index_put_({2, 3}, true);
  Tensor mask2 = rand({L, S}) < 0.3;
  mask2.index_put_({"...", 0}, false);
  Tensor mask3 = randn({N * H, L, S});
  for (bool bias_kv : {false, true}) {
    for (bool zero_attn : {false, true}) {
      nn::MultiheadAttention mha(
          nn::MultiheadAttentionOptions(E, H).add_bias_kv(bias_kv).add_zero_attn(zero_attn));
      mha->eval();
      const std::vector<std::pair<Tensor, Tensor>> masks = {
          {Tensor(), Tensor()}, {kpm, Tensor()}, {Tensor(), mask2}, {kpm, mask2}, {kpm, mask3}};
      for (size_t m = 0; m < masks.size(); ++m) {
        auto [with_w, w] = mha->forward(q, k, v, masks[m].first, true, masks[m].second);
        auto [fused, none] = mha->forward(q, k, v, masks[m].first, false, masks[m].second);
        EXPECT_FALSE(none.defined());
        expect_close(fused, with_w, 1e-5, 1e-6,
                     "mask set " + std::to_string(m) + " bias_kv " + std::to_string(bias_kv) +
                         " zero_attn " + std::to_string(zero_attn));
      }
    }
  }
}

TEST(MultiheadAttention, BoolMasksMaskAndFloatMasksAdd) {
  // LibTorch 1.13's C++ port added a bool mask as +1; Python (and Ember) mask with it.
  manual_seed(2);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  Tensor x = randn({3, 2, 4});
  Tensor bool_mask = ones({3, 3}, kBool).triu(1);
  Tensor float_mask = zeros({3, 3}).masked_fill(bool_mask, -kInf);
  auto [a, wa] = mha->forward(x, x, x, {}, true, bool_mask);
  auto [b, wb] = mha->forward(x, x, x, {}, true, float_mask);
  expect_close(a, b, 0, 0, "bool vs float mask");
  // Masked weights are exactly 0.
  EXPECT_EQ(wa.index({"...", 0, 1}).abs().max().item<float>(), 0.0f);
  // is_causal with the causal mask, fused or not, equals the mask alone.
  auto [c, none] = mha->forward(x, x, x, {}, false, float_mask, true, /*is_causal=*/true);
  expect_close(c, a, 1e-5, 1e-6, "is_causal");
}

TEST(MultiheadAttention, GradcheckThroughBothPaths) {
  manual_seed(3);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(5));
  mha->to(kFloat64);
  auto opts = TensorOptions().dtype(kFloat64).requires_grad(true);
  Tensor q = randn({3, 2, 4}, opts), k = randn({4, 2, 3}, opts), v = randn({4, 2, 5}, opts);
  Tensor kpm = zeros({2, 4}, kBool);
  kpm.index_put_({1, 2}, true);
  for (bool need_weights : {true, false}) {
    auto f = [&](const autograd::variable_list& x) {
      return autograd::variable_list{
          std::get<0>(mha->forward(x[0], x[1], x[2], kpm, need_weights))};
    };
    EXPECT_TRUE(autograd::gradcheck(f, {q, k, v})) << need_weights;
  }
}

TEST(MultiheadAttention, TrainingDropoutIsInTheReturnedWeights) {
  // As Python: the weights returned are the ones applied, after dropout (zeros, the rest / (1-p)).
  manual_seed(7);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 2).dropout(0.5));
  Tensor x = randn({6, 3, 8});
  mha->eval();
  Tensor clean = std::get<1>(mha->forward(x, x, x, {}, true, {}, /*average=*/false));
  mha->train();
  Tensor dropped = std::get<1>(mha->forward(x, x, x, {}, true, {}, /*average=*/false));
  const Tensor kept = dropped.ne(0);
  EXPECT_GT(kept.sum().item<int64_t>(), 0);
  EXPECT_LT(kept.sum().item<int64_t>(), dropped.numel());
  expect_close(dropped.masked_select(kept), (clean * 2).masked_select(kept), 1e-5, 1e-6,
               "kept weights scaled by 1 / (1 - p)");
}

TEST(MultiheadAttention, StaticKeysAndValuesAreShapeChecked) {
  namespace F = nn::functional;
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  Tensor q = randn({3, 2, 4});
  auto opts = [&] {
    return F::MultiheadAttentionForwardFuncOptions(4, 2, mha->in_proj_weight, mha->in_proj_bias, {},
                                                   {}, false, 0.0, mha->out_proj->weight,
                                                   mha->out_proj->bias);
  };
  // static_k/static_v [N·H, S, head_dim] replace the projected keys and values.
  Tensor sk = randn({4, 5, 2}), sv = randn({4, 5, 2});
  auto [out, w] = F::multi_head_attention_forward(q, q, q, opts().static_k(sk).static_v(sv));
  EXPECT_EQ(w.sizes(), IntArrayRef({2, 3, 5}));
  // A padding mask sized for the static keys is accepted; others are not.
  F::multi_head_attention_forward(
      q, q, q, opts().static_k(sk).static_v(sv).key_padding_mask(zeros({2, 5}, kBool)));
  EXPECT_THROW(
      F::multi_head_attention_forward(
          q, q, q, opts().static_k(sk).static_v(sv).key_padding_mask(zeros({2, 3}, kBool))),
      Error);
  EXPECT_THROW(F::multi_head_attention_forward(q, q, q, opts().static_k(randn({3, 5, 2}))), Error);
  EXPECT_THROW(F::multi_head_attention_forward(q, q, q, opts().static_k(randn({4, 5, 3}))), Error);
  EXPECT_THROW(
      F::multi_head_attention_forward(q, q, q, opts().static_k(sk).static_v(randn({4, 6, 2}))),
      Error);
}

TEST(MultiheadAttention, StateDictKeysArePythons) {
  nn::MultiheadAttention packed(nn::MultiheadAttentionOptions(8, 2).add_bias_kv(true));
  EXPECT_EQ(packed->named_parameters().keys(),
            (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "bias_k", "bias_v",
                                      "out_proj.weight", "out_proj.bias"}));
  nn::MultiheadAttention separate(nn::MultiheadAttentionOptions(8, 2).kdim(3).vdim(5).bias(false));
  EXPECT_EQ(separate->named_parameters().keys(),
            (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                      "out_proj.weight"}));
  EXPECT_EQ(separate->k_proj_weight.sizes(), IntArrayRef({8, 3}));
}

TEST(MultiheadAttention, ClearErrors) {
  EXPECT_THROW(nn::MultiheadAttention(nn::MultiheadAttentionOptions(6, 4)), Error);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  Tensor x = randn({3, 2, 4});
  EXPECT_THROW(mha->forward(randn({3, 2, 5}), x, x), Error);               // embed dim
  EXPECT_THROW(mha->forward(x, x, x, {}, true, randn({3, 4})), Error);     // 2-D mask shape
  EXPECT_THROW(mha->forward(x, x, x, {}, true, randn({3, 3, 3})), Error);  // 3-D mask batch
  EXPECT_THROW(mha->forward(x, x, x, zeros({3, 3}, kBool)), Error);        // padding mask shape
  EXPECT_THROW(mha->forward(x, x, x, {}, false, {}, true, true), Error);   // is_causal, no mask
  EXPECT_THROW(mha->forward(x, x, x, {}, true, zeros({3, 3}, kInt64)), Error);  // mask dtype
}

TEST(Transformer, LayersCloneIntoStacksAndRunThroughAnyModule) {
  manual_seed(4);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  nn::TransformerEncoder enc(nn::TransformerEncoderOptions(layer, 3));
  ASSERT_EQ(enc->layers->size(), 3U);
  // Deep copies: distinct parameters with the layer's values.
  auto p0 = enc->named_parameters()["layers.0.linear1.weight"];
  auto p1 = enc->named_parameters()["layers.1.linear1.weight"];
  EXPECT_FALSE(p0.is_same(p1));
  expect_close(p0, layer->linear1->weight, 0, 0, "cloned weight");
  enc->eval();
  Tensor x = randn({5, 2, 8});
  nn::Sequential seq(enc);
  expect_close(seq->forward(x), enc(x), 0, 0, "Sequential with default arguments");
  nn::AnyModule any(enc);
  expect_close(any.forward(x), enc(x), 0, 0, "AnyModule");
}

TEST(Transformer, ClonesOwnTheirNormsAndStacks) {
  nn::TransformerEncoder enc(
      nn::TransformerEncoderOptions(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8), 1)
          .norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4})))));
  auto copy = std::dynamic_pointer_cast<nn::TransformerEncoderImpl>(enc->clone());
  ASSERT_TRUE(copy);
  {
    NoGradGuard g;
    copy->named_parameters()["norm.weight"].fill_(3.0);
  }
  EXPECT_EQ(enc->named_parameters()["norm.weight"].sum().item<float>(), 4.0f);
  // The clone's forward uses its own norm (the AnyModule member follows the copy).
  Tensor x = randn({3, 2, 4});
  enc->eval();
  copy->eval();
  expect_close(copy->forward(x), enc(x) * 3.0, 1e-5, 1e-6, "clone's norm");
  nn::Transformer t(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(8));
  auto tc = std::dynamic_pointer_cast<nn::TransformerImpl>(t->clone());
  ASSERT_TRUE(tc);
  EXPECT_EQ(tc->encoder.ptr().get(), tc->named_children()["encoder"].get());
}

TEST(Transformer, CausalMaskAndBatchFirstAgree) {
  manual_seed(5);
  nn::Transformer t(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16).dropout(0.0));
  nn::Transformer tb(
      nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16).dropout(0.0).batch_first(true));
  {
    NoGradGuard g;
    auto src = t->named_parameters();
    auto dst = tb->named_parameters();
    for (const auto& key : src.keys()) dst[key].copy_(src[key]);
  }
  Tensor src = randn({6, 2, 8}), tgt = randn({4, 2, 8});
  Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(4);
  EXPECT_EQ(mask.index({0, 1}).item<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(mask.index({1, 0}).item<float>(), 0.0f);
  Tensor y = t->forward(src, tgt, {}, mask);
  Tensor yb = tb->forward(src.transpose(0, 1), tgt.transpose(0, 1), {}, mask);
  expect_close(yb.transpose(0, 1), y, 1e-5, 1e-6, "batch_first");
  // A later target position does not change earlier outputs (the mask is applied).
  Tensor tgt2 = tgt.clone();
  tgt2.index_put_({3}, randn({2, 8}));
  expect_close(t->forward(src, tgt2, {}, mask).narrow(0, 0, 3), y.narrow(0, 0, 3), 1e-5, 1e-6,
               "causal");
}

TEST(Transformer, ActivationCallableAndGradcheck) {
  manual_seed(6);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2)
                                        .dim_feedforward(8)
                                        .dropout(0.0)
                                        .norm_first(true)
                                        .activation([](const Tensor& x) { return x.tanh(); }));
  layer->to(kFloat64);
  Tensor x = randn({3, 2, 4}, TensorOptions().dtype(kFloat64).requires_grad(true));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& in) { return autograd::variable_list{layer(in[0])}; },
      {x}));
  // bias=false: no bias anywhere, the layer norms' included (Python 2.1+).
  nn::TransformerEncoderLayer no_bias(nn::TransformerEncoderLayerOptions(4, 2).bias(false));
  for (const auto& key : no_bias->named_parameters().keys())
    EXPECT_EQ(key.find("bias"), std::string::npos) << key;
  EXPECT_EQ(no_bias->named_parameters().size(), 6U);  // in_proj, out_proj, linear1/2, norm1/2
}

}  // namespace transformer_test
