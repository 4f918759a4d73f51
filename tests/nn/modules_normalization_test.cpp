// LayerNorm, RMSNorm (src/nn/modules/normalization.cpp) and the distance modules
// (src/nn/modules/distance.cpp): parameters and their initialisation, forward equals the
// functional form, printing, clone, to(kDouble), errors that name the module.
#include <gtest/gtest.h>

#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/normalization.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;
using ember_test::printed;

namespace {

using Keys = std::vector<std::string>;

// ---- LayerNorm ----

TEST(LayerNormModule, ParametersAreOnesAndZeros) {
  nn::LayerNorm ln(nn::LayerNormOptions({4, 5}));
  EXPECT_EQ(ln->named_parameters().keys(), (Keys{"weight", "bias"}));
  EXPECT_EQ(ln->weight.sizes(), IntArrayRef({4, 5}));
  EXPECT_TRUE(equal(ln->weight, ones({4, 5})));
  EXPECT_TRUE(equal(ln->bias, zeros({4, 5})));
  EXPECT_TRUE(ln->weight.requires_grad());
  {
    NoGradGuard g;
    ln->weight.normal_();
    ln->bias.normal_();
  }
  ln->reset_parameters();
  EXPECT_TRUE(equal(ln->weight, ones({4, 5})));
  EXPECT_TRUE(equal(ln->bias, zeros({4, 5})));
}

TEST(LayerNormModule, WithoutAffineHasNoParameters) {
  nn::LayerNorm ln(nn::LayerNormOptions({3}).elementwise_affine(false));
  EXPECT_FALSE(ln->weight.defined());
  EXPECT_FALSE(ln->bias.defined());
  EXPECT_TRUE(ln->parameters().empty());
  EXPECT_TRUE(ln->state_dict().is_empty());
  Tensor x = randn({2, 3});
  expect_same(ln(x), F::layer_norm(x, F::LayerNormFuncOptions({3})), "no affine");
}

TEST(LayerNormModule, ForwardEqualsFunctional) {
  nn::LayerNorm ln(nn::LayerNormOptions({4, 5}).eps(1e-3));
  {
    NoGradGuard g;
    ln->weight.normal_();
    ln->bias.normal_();
  }
  Tensor x = randn({2, 3, 4, 5});
  expect_same(
      ln(x),
      F::layer_norm(x, F::LayerNormFuncOptions({4, 5}).weight(ln->weight).bias(ln->bias).eps(1e-3)),
      "LayerNorm");
  // Gradients reach both parameters.
  ln(x).pow(2).sum().backward();
  EXPECT_TRUE(ln->weight.grad().defined());
  EXPECT_TRUE(ln->bias.grad().defined());
  // The vector constructor is LayerNormOptions(shape).
  nn::LayerNorm from_shape(std::vector<int64_t>{5});
  EXPECT_EQ(from_shape->options.normalized_shape(), (std::vector<int64_t>{5}));
}

TEST(LayerNormModule, PrettyPrint) {
  EXPECT_EQ(printed(*nn::LayerNorm(nn::LayerNormOptions({4, 5}))),
            "ember::nn::LayerNorm([4, 5], eps=1e-05, elementwise_affine=true)");
  EXPECT_EQ(printed(*nn::LayerNorm(nn::LayerNormOptions({8}).eps(0.001).elementwise_affine(false))),
            "ember::nn::LayerNorm([8], eps=0.001, elementwise_affine=false)");
}

TEST(LayerNormModule, CloneAndToDouble) {
  nn::LayerNorm ln(nn::LayerNormOptions({3}));
  auto copy = std::dynamic_pointer_cast<nn::LayerNormImpl>(ln->clone());
  ASSERT_TRUE(copy);
  {
    NoGradGuard g;
    copy->weight.fill_(2.0);
  }
  EXPECT_TRUE(equal(ln->weight, ones({3})));
  EXPECT_TRUE(copy->weight.is_same(copy->named_parameters()["weight"]));
  EXPECT_TRUE(copy->bias.is_same(copy->named_parameters()["bias"]));
  ln->to(kDouble);
  EXPECT_EQ(ln->weight.dtype(), kDouble);
  EXPECT_EQ(ln->bias.dtype(), kDouble);
  EXPECT_EQ(ln(randn({2, 3}, kDouble)).dtype(), kDouble);
}

TEST(LayerNormModule, ErrorsNameTheModule) {
  nn::LayerNorm ln(nn::LayerNormOptions({4, 5}));
  expect_error(
      [&] {
        ln(ones({3, 4}));
      },
      {"LayerNorm: expected input with shape [*, 4, 5], got [3, 4]"});
  expect_error([&] { ln(ones({5, 4})); }, {"LayerNorm: expected input with shape [*, 4, 5]"});
  expect_error([&] { ln(ones({4})); }, {"got [4] float32"});
  // An integer input: the functional form's dtype check, named.
  expect_error<TypeError>([&] { ln(ones({4, 5}, kLong)); }, {"LayerNorm: layer_norm:", "int64"});
  expect_error<ValueError>([] { nn::LayerNorm(nn::LayerNormOptions(std::vector<int64_t>{})); },
                           {"LayerNorm: normalized_shape must name at least one dim"});
}

// ---- RMSNorm ----

TEST(RMSNormModule, WeightIsOnes) {
  nn::RMSNorm rms(nn::RMSNormOptions({6}));
  EXPECT_EQ(rms->named_parameters().keys(), (Keys{"weight"}));
  EXPECT_TRUE(equal(rms->weight, ones({6})));
  nn::RMSNorm plain(nn::RMSNormOptions({6}).elementwise_affine(false));
  EXPECT_TRUE(plain->parameters().empty());
  EXPECT_FALSE(plain->weight.defined());
}

TEST(RMSNormModule, ForwardEqualsFunctional) {
  nn::RMSNorm rms(nn::RMSNormOptions({2, 3}).eps(1e-4));
  {
    NoGradGuard g;
    rms->weight.normal_();
  }
  Tensor x = randn({4, 2, 3});
  expect_same(rms(x), F::rms_norm(x, F::RMSNormFuncOptions({2, 3}).weight(rms->weight).eps(1e-4)),
              "RMSNorm");
  nn::RMSNorm default_eps(nn::RMSNormOptions({3}));
  Tensor y = randn({5, 3}, kDouble);
  default_eps->to(kDouble);
  expect_same(default_eps(y), F::rms_norm(y, F::RMSNormFuncOptions({3}).weight(ones({3}, kDouble))),
              "RMSNorm default eps, float64");
}

TEST(RMSNormModule, PrettyPrintCloneErrors) {
  EXPECT_EQ(printed(*nn::RMSNorm(nn::RMSNormOptions({4}))),
            "ember::nn::RMSNorm([4], eps=None, elementwise_affine=true)");
  EXPECT_EQ(printed(*nn::RMSNorm(nn::RMSNormOptions({2, 4}).eps(1e-6).elementwise_affine(false))),
            "ember::nn::RMSNorm([2, 4], eps=1e-06, elementwise_affine=false)");
  nn::RMSNorm rms(nn::RMSNormOptions({4}));
  auto copy = std::dynamic_pointer_cast<nn::RMSNormImpl>(rms->clone());
  ASSERT_TRUE(copy);
  EXPECT_NE(copy->weight.data_ptr(), rms->weight.data_ptr());
  EXPECT_TRUE(copy->weight.is_same(copy->named_parameters()["weight"]));
  expect_error(
      [&] {
        rms(ones({4, 3}));
      },
      {"RMSNorm: expected input with shape [*, 4], got [4, 3]"});
}

// ---- Distance ----

TEST(DistanceModules, ForwardEqualsFunctional) {
  Tensor a = randn({5, 4}), b = randn({5, 4});
  nn::CosineSimilarity cos_default;
  expect_same(cos_default(a, b), F::cosine_similarity(a, b), "CosineSimilarity");
  nn::CosineSimilarity cos0(nn::CosineSimilarityOptions().dim(0).eps(1e-3));
  expect_same(cos0(a, b),
              F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(0).eps(1e-3)),
              "CosineSimilarity dim 0");
  nn::PairwiseDistance dist_default;
  expect_same(dist_default(a, b), F::pairwise_distance(a, b), "PairwiseDistance");
  nn::PairwiseDistance dist1(nn::PairwiseDistanceOptions().p(1).eps(0).keepdim(true));
  expect_same(
      dist1(a, b),
      F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().p(1).eps(0).keepdim(true)),
      "PairwiseDistance p=1 keepdim");
  EXPECT_EQ(dist1(a, b).sizes(), IntArrayRef({5, 1}));
}

TEST(DistanceModules, WorkAfterToDouble) {
  nn::Sequential seq({{"cos", nn::AnyModule(nn::CosineSimilarity())}});
  seq->to(kDouble);
  Tensor a = randn({3, 4}, kDouble), b = randn({3, 4}, kDouble);
  nn::PairwiseDistance dist;
  dist->to(kDouble);
  EXPECT_EQ(seq->forward(a, b).dtype(), kDouble);
  EXPECT_EQ(dist(a, b).dtype(), kDouble);
  EXPECT_TRUE(seq->state_dict().is_empty());
}

TEST(DistanceModules, PrettyPrintCloneErrors) {
  EXPECT_EQ(printed(*nn::CosineSimilarity()), "ember::nn::CosineSimilarity(dim=1, eps=1e-08)");
  EXPECT_EQ(printed(*nn::PairwiseDistance()),
            "ember::nn::PairwiseDistance(p=2, eps=1e-06, keepdim=false)");
  EXPECT_EQ(printed(*nn::PairwiseDistance(nn::PairwiseDistanceOptions().p(1.5).keepdim(true))),
            "ember::nn::PairwiseDistance(p=1.5, eps=1e-06, keepdim=true)");
  nn::CosineSimilarity cos(nn::CosineSimilarityOptions().dim(0));
  auto copy = std::dynamic_pointer_cast<nn::CosineSimilarityImpl>(cos->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->options.dim(), 0);
  expect_error<IndexError>([] { nn::CosineSimilarity()(randn({3}), randn({3})); },
                           {"CosineSimilarity: cosine_similarity: dim 1 is out of range"});
  expect_error(
      [] {
        nn::PairwiseDistance()(randn({3, 4}), randn({2, 4}));
      },
      {"PairwiseDistance: pairwise_distance:", "cannot be broadcast"});
}

}  // namespace
