// Embedding and EmbeddingBag modules (src/nn/modules/embedding.cpp): PyTorch's initialisation
// (N(0, 1), padding row zero), forward equals the functional form, from_pretrained, Sequential
// calls with default arguments, printing, clone, to(kDouble), errors that name the module.
#include <gtest/gtest.h>

#include "ember/nn/functional/embedding.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;
using ember_test::printed;

namespace {

Tensor ids(std::vector<int64_t> v, std::vector<int64_t> shape) {
  return tensor(v, kLong).reshape(shape);
}

// ---- Embedding ----

TEST(EmbeddingModule, InitialisationIsStandardNormal) {
  manual_seed(11);
  nn::Embedding emb(1000, 64);
  ASSERT_EQ(emb->weight.sizes(), IntArrayRef({1000, 64}));
  EXPECT_EQ(emb->weight.dtype(), kFloat);
  EXPECT_TRUE(emb->weight.requires_grad());
  // 64000 draws: the mean's standard error is 0.004 and the std's 0.0028, so these bounds are
  // ~5 sigma; uniform(-1, 1) (std 0.58), kaiming or xavier schemes (std << 1) all fail them.
  EXPECT_NEAR(emb->weight.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(emb->weight.std().item<double>(), 1.0, 0.015);
  // Normal, not uniform: about 4.6% of N(0, 1) lies beyond 2 sigma (none of uniform(-a, a) with
  // std 1 does, as a = 1.73).
  const double tail = (emb->weight.abs() > 2.0).to(kDouble).mean().item<double>();
  EXPECT_NEAR(tail, 0.0455, 0.005);
}

TEST(EmbeddingModule, PaddingRowIsZeroAndGetsNoGradient) {
  manual_seed(3);
  nn::Embedding emb(nn::EmbeddingOptions(10, 4).padding_idx(2));
  EXPECT_TRUE(equal(emb->weight[2], zeros({4})));
  EXPECT_GT(emb->weight[3].abs().sum().item<double>(), 0.0);
  // A negative padding_idx counts from the end and is stored resolved, as PyTorch.
  nn::Embedding last(nn::EmbeddingOptions(10, 4).padding_idx(-1));
  EXPECT_EQ(*last->options.padding_idx(), 9);
  EXPECT_TRUE(equal(last->weight[9], zeros({4})));

  Tensor y = emb(ids({2, 3, 2, 5}, {2, 2}));
  (y * randn({2, 2, 4})).sum().backward();
  EXPECT_TRUE(equal(emb->weight.grad()[2], zeros({4})));
  EXPECT_GT(emb->weight.grad()[3].abs().sum().item<double>(), 0.0);
}

TEST(EmbeddingModule, ForwardEqualsFunctional) {
  nn::Embedding emb(nn::EmbeddingOptions(12, 5).padding_idx(0).scale_grad_by_freq(true));
  Tensor x = ids({1, 0, 4, 4, 11, 7}, {3, 2});
  expect_same(emb(x),
              F::embedding(x, emb->weight,
                           F::EmbeddingFuncOptions().padding_idx(0).scale_grad_by_freq(true)),
              "Embedding");
  expect_same(emb(x.to(kInt)), F::embedding(x, emb->weight), "Embedding, int32 indices");
  // max_norm renormalises the looked-up rows of the module's own table in place.
  nn::Embedding capped(nn::EmbeddingOptions(6, 3).max_norm(0.5));
  Tensor expected_weight = capped->weight.detach().clone();
  Tensor expected =
      F::embedding(ids({1, 2}, {2}), expected_weight, F::EmbeddingFuncOptions().max_norm(0.5));
  expect_same(capped(ids({1, 2}, {2})), expected, "Embedding max_norm");
  EXPECT_TRUE(allclose(capped->weight, expected_weight));
  EXPECT_LE(capped->weight[1].norm().item<double>(), 0.5 + 1e-6);
}

TEST(EmbeddingModule, FromPretrained) {
  Tensor table = randn({5, 3});
  nn::Embedding frozen = nn::Embedding::from_pretrained(table);
  EXPECT_EQ(frozen->weight.data_ptr(), table.data_ptr());  // shares memory, as Python
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_FALSE(table.requires_grad());
  EXPECT_EQ(frozen->options.num_embeddings(), 5);
  EXPECT_EQ(frozen->options.embedding_dim(), 3);
  expect_same(frozen(ids({4, 0}, {2})), F::embedding(ids({4, 0}, {2}), table), "from_pretrained");

  nn::Embedding trainable = nn::Embedding::from_pretrained(
      table, nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(1));
  EXPECT_TRUE(trainable->weight.requires_grad());
  EXPECT_FALSE(table.requires_grad());  // the caller's tensor keeps its own flag
  EXPECT_EQ(*trainable->options.padding_idx(), 1);
  // The given table is used as is: its padding row is not zeroed (Python's behaviour).
  EXPECT_TRUE(equal(trainable->weight[1], table[1]));
  EXPECT_EQ(trainable->named_parameters().keys(), std::vector<std::string>{"weight"});

  expect_error<ValueError>([] { nn::Embedding::from_pretrained(randn({5})); },
                           {"Embedding::from_pretrained: expected a 2-D", "[5] float32"});
}

TEST(EmbeddingModule, GivenWeightIsUsed) {
  Tensor w = randn({4, 2});
  nn::Embedding emb(nn::EmbeddingOptions(4, 2)._weight(w));
  EXPECT_TRUE(emb->weight.is_same(w));
  expect_error<ValueError>(
      [] {
        nn::Embedding(nn::EmbeddingOptions(4, 3)._weight(randn({4, 2})));
      },
      {"Embedding: _weight [4, 2] float32 does not match num_embeddings 4 "
       "and embedding_dim 3"});
}

TEST(EmbeddingModule, PrettyPrint) {
  EXPECT_EQ(printed(*nn::Embedding(10, 3)),
            "ember::nn::Embedding(num_embeddings=10, embedding_dim=3)");
  EXPECT_EQ(printed(*nn::Embedding(nn::EmbeddingOptions(10, 3)
                                       .padding_idx(-2)
                                       .max_norm(2.5)
                                       .norm_type(1)
                                       .scale_grad_by_freq(true)
                                       .sparse(true))),
            "ember::nn::Embedding(num_embeddings=10, embedding_dim=3, padding_idx=8, "
            "max_norm=2.5, norm_type=1, scale_grad_by_freq=true, sparse=true)");
}

TEST(EmbeddingModule, CloneIsDeep) {
  nn::Embedding emb(nn::EmbeddingOptions(6, 2).padding_idx(0));
  auto copy = std::dynamic_pointer_cast<nn::EmbeddingImpl>(emb->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(equal(copy->weight, emb->weight));
  EXPECT_NE(copy->weight.data_ptr(), emb->weight.data_ptr());
  EXPECT_TRUE(copy->weight.is_same(copy->named_parameters()["weight"]));
  {
    NoGradGuard g;
    copy->weight.fill_(3.0);
  }
  EXPECT_NE(emb->weight[1][0].item<float>(), 3.f);
  EXPECT_EQ(*copy->options.padding_idx(), 0);
  EXPECT_EQ(copy->forward(ids({1}, {1})).sum().item<float>(), 6.f);
}

TEST(EmbeddingModule, ToDouble) {
  nn::Embedding emb(5, 3);
  Tensor handle = emb->weight;
  emb->to(kDouble);
  EXPECT_EQ(emb->weight.dtype(), kDouble);
  EXPECT_EQ(handle.dtype(), kDouble);
  EXPECT_EQ(emb(ids({0, 4}, {2})).dtype(), kDouble);
}

TEST(EmbeddingModule, ErrorsNameTheModule) {
  nn::Embedding emb(10, 3);
  expect_error<TypeError>(
      [&] {
        emb(tensor({1.0f, 2.0f, 3.0f}));
      },
      {"Embedding: expected indices to hold int64 or int32 indices, got [3] "
       "float32"});
  // Errors of the functional form are led by the module's name and keep their type.
  expect_error<IndexError>([&] { emb(ids({1, 10}, {2})); }, {"Embedding: embedding: index 10"});
  expect_error<ValueError>([] { nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(10)); },
                           {"Embedding: padding_idx 10 is out of range for num_embeddings 10"});
  expect_error<ValueError>([] { nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(-11)); },
                           {"Embedding: padding_idx -11"});
}

// ---- EmbeddingBag ----

TEST(EmbeddingBagModule, InitialisationAndPadding) {
  manual_seed(5);
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(1000, 64).padding_idx(7));
  EXPECT_NEAR(bag->weight.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(bag->weight.std().item<double>(), 1.0, 0.015);
  // Python zeroes the padding row after the normal fill (LibTorch does it before, which leaves
  // it random).
  EXPECT_TRUE(equal(bag->weight[7], zeros({64})));
}

TEST(EmbeddingBagModule, ForwardEqualsFunctional) {
  nn::EmbeddingBag mean_bag(8, 3);
  Tensor x2 = ids({1, 2, 3, 4, 5, 6}, {2, 3});
  expect_same(mean_bag(x2), F::embedding_bag(x2, mean_bag->weight), "2-D input, kMean");

  nn::EmbeddingBag sum_bag(
      nn::EmbeddingBagOptions(8, 3).mode(ember::kSum).padding_idx(0).include_last_offset(true));
  Tensor flat = ids({1, 0, 3, 4, 7, 2}, {6});
  Tensor offsets = ids({0, 2, 6}, {3});
  Tensor psw = randn({6});
  expect_same(sum_bag(flat, offsets, psw),
              F::embedding_bag(flat, sum_bag->weight,
                               F::EmbeddingBagFuncOptions()
                                   .offsets(offsets)
                                   .mode(ember::kSum)
                                   .per_sample_weights(psw)
                                   .include_last_offset(true)
                                   .padding_idx(0)),
              "1-D input with offsets and per_sample_weights, kSum");

  nn::EmbeddingBag max_bag(nn::EmbeddingBagOptions(8, 3).mode(ember::kMax));
  expect_same(
      max_bag(flat, ids({0, 3}, {2})),
      F::embedding_bag(flat, max_bag->weight,
                       F::EmbeddingBagFuncOptions().offsets(ids({0, 3}, {2})).mode(ember::kMax)),
      "kMax");
}

TEST(EmbeddingBagModule, DefaultArgumentsInsideContainers) {
  nn::EmbeddingBag bag(8, 3);
  Tensor x2 = ids({1, 2, 3, 4}, {2, 2});
  Tensor expected = bag(x2);
  nn::Sequential seq(bag);
  expect_same(seq->forward(x2), expected, "Sequential with one argument");
  Tensor flat = ids({1, 2, 3, 4}, {4});
  expect_same(seq->forward(flat, ids({0, 2}, {2})), expected, "Sequential with offsets");
  nn::AnyModule any(bag);
  expect_same(any.forward(x2), expected, "AnyModule with one argument");
  // With a forward hook the holder call boxes its arguments: still one argument.
  bag->register_forward_hook(
      [](nn::Module&, const std::vector<IValue>& in, const IValue&) -> std::optional<IValue> {
        EXPECT_EQ(in.size(), 1u);
        return std::nullopt;
      });
  expect_same(bag(x2), expected, "hooked call");
  expect_error<ValueError>([&] { any.forward(x2, Tensor(), Tensor(), Tensor()); },
                           {"EmbeddingBag: forward takes 1 to 3 arguments", "got 4"});
}

TEST(EmbeddingBagModule, FromPretrained) {
  Tensor table = randn({6, 2});
  nn::EmbeddingBag bag = nn::EmbeddingBag::from_pretrained(
      table, nn::EmbeddingBagFromPretrainedOptions().mode(ember::kSum));
  EXPECT_EQ(bag->weight.data_ptr(), table.data_ptr());
  EXPECT_FALSE(bag->weight.requires_grad());
  EXPECT_TRUE(std::holds_alternative<enumtype::kSum>(bag->options.mode()));
  Tensor x = ids({0, 5}, {1, 2});
  expect_same(bag(x), (table[0] + table[5]).unsqueeze(0), "from_pretrained kSum");
  nn::EmbeddingBag trainable = nn::EmbeddingBag::from_pretrained(
      table, nn::EmbeddingBagFromPretrainedOptions().freeze(false));
  EXPECT_TRUE(trainable->weight.requires_grad());
  expect_error<ValueError>(
      [] {
        nn::EmbeddingBag::from_pretrained(randn({2, 2, 2}));
      },
      {"EmbeddingBag::from_pretrained: expected a 2-D"});
}

TEST(EmbeddingBagModule, PrettyPrint) {
  EXPECT_EQ(printed(*nn::EmbeddingBag(10, 3)),
            "ember::nn::EmbeddingBag(num_embeddings=10, embedding_dim=3)");
  EXPECT_EQ(printed(*nn::EmbeddingBag(nn::EmbeddingBagOptions(10, 3)
                                          .max_norm(1.5)
                                          .norm_type(3)
                                          .scale_grad_by_freq(true)
                                          .mode(ember::kSum)
                                          .include_last_offset(true)
                                          .padding_idx(-1))),
            "ember::nn::EmbeddingBag(num_embeddings=10, embedding_dim=3, max_norm=1.5, "
            "norm_type=3, scale_grad_by_freq=true, mode=kSum, include_last_offset=true, "
            "padding_idx=9)");
}

TEST(EmbeddingBagModule, CloneAndToDouble) {
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(5, 2).mode(ember::kMax));
  auto copy = std::dynamic_pointer_cast<nn::EmbeddingBagImpl>(bag->clone());
  ASSERT_TRUE(copy);
  EXPECT_NE(copy->weight.data_ptr(), bag->weight.data_ptr());
  EXPECT_TRUE(equal(copy->weight, bag->weight));
  EXPECT_TRUE(std::holds_alternative<enumtype::kMax>(copy->options.mode()));
  copy->to(kDouble);
  EXPECT_EQ(copy->weight.dtype(), kDouble);
  EXPECT_EQ(bag->weight.dtype(), kFloat);
  EXPECT_EQ(copy->forward(ids({0, 1}, {1, 2})).dtype(), kDouble);
}

TEST(EmbeddingBagModule, ErrorsNameTheModule) {
  nn::EmbeddingBag bag(10, 3);
  expect_error<ValueError>(
      [&] {
        bag(ids({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}));
      },
      {"EmbeddingBag: expected input of shape [B, L]", "got [2, 2, 2] int64"});
  expect_error<TypeError>(
      [&] {
        bag(ones({2, 2}));
      },
      {"EmbeddingBag: expected input to hold int64 or int32 indices", "[2, 2] float32"});
  // 1-D input without offsets: the functional form's check, named.
  expect_error([&] { bag(ids({1, 2}, {2})); }, {"EmbeddingBag: embedding_bag:"});
  // per_sample_weights need kSum.
  expect_error(
      [&] {
        bag(ids({1, 2}, {1, 2}), Tensor(), ones({1, 2}));
      },
      {"EmbeddingBag: embedding_bag:"});
}

}  // namespace
