// nn::utils::prune: the reparametrization (weight_orig, weight_mask, the hook), amounts, iterative
// pruning, remove, global pruning and the errors. Masks against PyTorch's are in
// nn_utils_prune_golden_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/utils/prune.h"
#include "tests/support/expect_error.h"

using namespace ember;
namespace prune = ember::nn::utils::prune;
using ember_test::expect_error;

// A named namespace: the test sources are compiled as unity files.
namespace prune_test {

int64_t zeros_in(const Tensor& t) { return (t == 0).sum().item<int64_t>(); }

TEST(Prune, L1UnstructuredReparametrizes) {
  nn::Linear lin(4, 3);
  {
    NoGradGuard ng;
    lin->weight.copy_(ember::arange(1, 13, ember::kFloat).reshape({3, 4}) *
                      ember::tensor({1.0f, -1.0f, 1.0f, -1.0f}));
  }
  Tensor w0 = lin->weight.detach().clone();
  prune::l1_unstructured(*lin, "weight", 0.25);  // round(3.0) = 3 smallest: 1, 2, 3
  auto sd = lin->state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"bias", "weight_orig", "weight_mask"}));
  EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"bias", "weight_orig"}));
  Tensor mask = sd["weight_mask"];
  EXPECT_EQ(zeros_in(mask), 3);
  EXPECT_EQ(mask.index({0, 0}).item<float>(), 0.0f);
  EXPECT_EQ(mask.index({0, 3}).item<float>(), 1.0f);
  EXPECT_TRUE(ember::equal(lin->weight, w0 * mask));
  EXPECT_TRUE(prune::is_pruned(*lin));

  // Gradients reach weight_orig through the mask.
  Tensor orig = lin->named_parameters()["weight_orig"];
  lin(ember::ones({2, 4})).sum().backward();
  ASSERT_TRUE(orig.grad().defined());
  EXPECT_TRUE(ember::equal(orig.grad(), mask * 2.0));

  // An update of weight_orig shows in the next call (the hook recomputes the member).
  {
    NoGradGuard ng;
    orig.add_(1.0);
  }
  lin(ember::ones({1, 4}));
  EXPECT_TRUE(ember::equal(lin->weight, (w0 + 1.0) * mask));

  prune::remove(*lin, "weight");
  EXPECT_EQ(lin->state_dict().keys(), (std::vector<std::string>{"bias", "weight"}));
  EXPECT_FALSE(prune::is_pruned(*lin));
  EXPECT_TRUE(lin->weight.requires_grad());
  EXPECT_TRUE(lin->weight.is_leaf());
  EXPECT_TRUE(ember::equal(lin->weight, (w0 + 1.0) * mask));
  EXPECT_TRUE(ember::equal(lin->named_parameters()["weight"], lin->weight));
}

TEST(Prune, AmountsRoundHalfToEvenAndCounts) {
  for (auto [amount, expected] : std::vector<std::pair<double, int64_t>>{
           {0.25, 2}, {0.35, 4}, {0.45, 4}, {0.5, 5}, {0.05, 0}, {0.15, 2}, {1.0, 10}}) {
    nn::Linear lin(nn::LinearOptions(10, 1).bias(false));
    prune::l1_unstructured(*lin, "weight", amount);
    EXPECT_EQ(zeros_in(lin->state_dict()["weight_mask"]), expected) << amount;
  }
  nn::Linear lin(10, 1);
  prune::random_unstructured(*lin, "weight", 7);
  EXPECT_EQ(zeros_in(lin->state_dict()["weight_mask"]), 7);
  expect_error<ValueError>([] { prune::Amount a(1.5); }, {"amount=1.5", "[0, 1]"});
  expect_error<ValueError>([] { prune::Amount a(-2); }, {"amount=-2", "non-negative"});
  nn::Linear small(3, 1);
  expect_error<ValueError>([&] { prune::l1_unstructured(*small, "weight", 4); },
                           {"amount=4", "number of parameters to prune=3"});
  EXPECT_FALSE(prune::is_pruned(*small));
  EXPECT_EQ(small->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
}

TEST(Prune, IterativePruningCombinesMasks) {
  nn::Linear lin(6, 4);
  prune::l1_unstructured(*lin, "weight", 0.5);      // 12 of 24
  prune::ln_structured(*lin, "weight", 1, 2.0, 0);  // one more row, among the four
  auto method = prune::pruning_method(*lin, "weight");
  auto container = std::dynamic_pointer_cast<prune::PruningContainer>(method);
  ASSERT_TRUE(container != nullptr);
  EXPECT_EQ(container->size(), 2u);
  Tensor mask = lin->state_dict()["weight_mask"];
  EXPECT_GE(zeros_in(mask), 12);
  EXPECT_EQ((mask.sum(1) == 0).sum().item<int64_t>() >= 1, true);
  // A third, unstructured: a fraction of what is left.
  const int64_t left = 24 - zeros_in(mask);
  prune::l1_unstructured(*lin, "weight", 0.5);
  EXPECT_EQ(zeros_in(lin->state_dict()["weight_mask"]),
            24 - left + static_cast<int64_t>(std::nearbyint(0.5 * left)));
  EXPECT_EQ(container->size(), 2u);  // the module's container is a new one
  EXPECT_EQ(
      std::dynamic_pointer_cast<prune::PruningContainer>(prune::pruning_method(*lin, "weight"))
          ->size(),
      3u);
}

TEST(Prune, GlobalUnstructuredAcrossModules) {
  nn::Linear a(nn::LinearOptions(4, 2).bias(false)), b(nn::LinearOptions(3, 2).bias(false));
  {
    NoGradGuard ng;
    a->weight.copy_(ember::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f}).view({2, 4}));
    b->weight.copy_(ember::tensor({-0.5f, 9.0f, 1.5f, 10.0f, -2.5f, 11.0f}).view({2, 3}));
  }
  prune::global_unstructured<prune::L1Unstructured>({{a.ptr(), "weight"}, {b.ptr(), "weight"}}, 5);
  // The five smallest magnitudes of both: 0.5, 1, 1.5, 2, 2.5.
  EXPECT_TRUE(ember::equal(a->state_dict()["weight_mask"],
                           ember::tensor({0.f, 0.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f}).view({2, 4})));
  EXPECT_TRUE(ember::equal(b->state_dict()["weight_mask"],
                           ember::tensor({0.f, 1.f, 0.f, 1.f, 0.f, 1.f}).view({2, 3})));
  expect_error<TypeError>(
      [&] {
        prune::global_unstructured<prune::LnStructured>({{a.ptr(), "weight"}}, 1, 2.0, 0);
      },
      {"global_unstructured", "unstructured"});
}

TEST(Prune, CustomFromMaskIdentityAndErrors) {
  nn::Conv2d conv(2, 3, 3);
  Tensor mask = (ember::rand({3, 2, 3, 3}) > 0.5).to(kFloat);
  prune::custom_from_mask(*conv, "weight", mask);
  EXPECT_TRUE(ember::equal(conv->state_dict()["weight_mask"], mask));
  prune::identity(*conv, "bias");
  EXPECT_EQ(zeros_in(conv->state_dict()["bias_mask"]), 0);
  expect_error<ValueError>([&] { prune::remove(*conv, "kernel"); },
                           {"kernel", "has to be pruned before pruning can be removed"});
  expect_error<ValueError>([&] { prune::l1_unstructured(*conv, "kernel", 0.1); },
                           {"no parameter 'kernel'"});
  nn::Linear lin(3, 2);
  expect_error<ValueError>([&] { prune::ln_structured(*lin, "bias", 1, 2.0, 0); },
                           {"multidimensional"});
  expect_error<IndexError>([&] { prune::ln_structured(*lin, "weight", 1, 2.0, 2); },
                           {"invalid index 2"});
  expect_error<ValueError>([&] { prune::l1_unstructured(*lin, "weight", 0.5, ember::ones({3})); },
                           {"importance_scores", "same shape"});
  EXPECT_FALSE(prune::is_pruned(*lin));
  EXPECT_EQ(lin->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
}

TEST(Prune, RandomStructuredPrunesWholeChannels) {
  nn::Conv2d conv(4, 6, 3);
  prune::random_structured(*conv, "weight", 0.5, 0);
  Tensor mask = conv->state_dict()["weight_mask"];
  Tensor per_channel = mask.sum({1, 2, 3});
  EXPECT_EQ((per_channel == 0).sum().item<int64_t>(), 3);
  EXPECT_EQ((per_channel == 36).sum().item<int64_t>(), 3);
  // is_pruned sees a pruned descendant.
  nn::Sequential seq(nn::Linear(2, 2), conv);
  EXPECT_TRUE(prune::is_pruned(*seq));
}

}  // namespace prune_test
