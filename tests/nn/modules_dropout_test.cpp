// Dropout modules (src/nn/modules/dropout.cpp): forward equals the functional form with the
// module's training flag, eval is the identity, statistics of a training pass, printing, clone,
// errors that name the module.
#include <gtest/gtest.h>

#include "ember/nn/functional/dropout.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;
using ember_test::printed;

namespace {

// Runs `module_call` and `functional_call` from the same seed: equal outputs mean the module
// passed p, training and inplace through.
template <class M, class Fn>
void expect_matches_functional(M module, const Tensor& x, Fn functional_call, const char* what) {
  manual_seed(1234);
  Tensor y = module(x.clone());
  manual_seed(1234);
  Tensor expected = functional_call(x.clone());
  expect_same(y, expected, what);
}

TEST(DropoutModules, TrainingForwardEqualsFunctional) {
  Tensor x = randn({4, 6, 5, 3, 2});
  const double p = 0.3;
  expect_matches_functional(
      nn::Dropout(p), x, [&](Tensor t) { return F::dropout(t, F::DropoutFuncOptions().p(p)); },
      "Dropout");
  Tensor x3 = randn({4, 6, 5});
  expect_matches_functional(
      nn::Dropout1d(p), x3,
      [&](Tensor t) { return F::dropout1d(t, F::Dropout1dFuncOptions().p(p)); }, "Dropout1d");
  Tensor x4 = randn({4, 6, 5, 3});
  expect_matches_functional(
      nn::Dropout2d(p), x4,
      [&](Tensor t) { return F::dropout2d(t, F::Dropout2dFuncOptions().p(p)); }, "Dropout2d");
  expect_matches_functional(
      nn::Dropout3d(p), x,
      [&](Tensor t) { return F::dropout3d(t, F::Dropout3dFuncOptions().p(p)); }, "Dropout3d");
  expect_matches_functional(
      nn::AlphaDropout(p), x,
      [&](Tensor t) {
        return F::alpha_dropout(t, F::AlphaDropoutFuncOptions().p(p).training(true));
      },
      "AlphaDropout");
  expect_matches_functional(
      nn::FeatureAlphaDropout(p), x,
      [&](Tensor t) {
        return F::feature_alpha_dropout(t, F::FeatureAlphaDropoutFuncOptions().p(p).training(true));
      },
      "FeatureAlphaDropout");
}

TEST(DropoutModules, EvalIsTheIdentity) {
  Tensor x = randn({2, 3, 4, 5, 6});
  auto check = [&](auto module, const Tensor& input, const char* what) {
    module->eval();
    EXPECT_FALSE(module->is_training());
    expect_same(module(input), input, what);
    module->train();
    EXPECT_FALSE(equal(module(input), input)) << what << " must drop while training";
  };
  check(nn::Dropout(0.5), x, "Dropout");
  check(nn::Dropout1d(0.5), x.reshape({2, 3, -1}), "Dropout1d");
  check(nn::Dropout2d(0.5), x.reshape({2, 3, 4, -1}), "Dropout2d");
  check(nn::Dropout3d(0.5), x, "Dropout3d");
  check(nn::AlphaDropout(0.5), x, "AlphaDropout");
  check(nn::FeatureAlphaDropout(0.5), x, "FeatureAlphaDropout");
}

TEST(DropoutModules, EvalOfAParentReachesTheDropout) {
  nn::Sequential seq(nn::ReLU(), nn::Dropout(0.9));
  Tensor x = rand({1000}) + 0.5;
  seq->eval();
  expect_same(seq->forward(x), x, "Sequential(ReLU, Dropout) in eval");
  seq->train();
  EXPECT_GT((seq->forward(x) == 0).sum().item<int64_t>(), 800);
}

TEST(DropoutModules, TrainingStatistics) {
  manual_seed(7);
  const int64_t n = 100000;
  const double p = 0.3;
  Tensor y = nn::Dropout(p)(ones({n}));
  // The dropped fraction has standard deviation sqrt(p (1 - p) / n) = 0.0014: a bound of 0.01
  // is 7 sigma, and a module passing a wrong p (e.g. 1 - p or the default 0.5) is far outside.
  const double dropped = (y == 0).to(kDouble).mean().item<double>();
  EXPECT_NEAR(dropped, p, 0.01);
  // Survivors are scaled by 1 / (1 - p).
  EXPECT_NEAR(y.max().item<double>(), 1.0 / (1.0 - p), 1e-6);
  EXPECT_NEAR(y.sum().item<double>() / n, 1.0, 0.02);

  // Dropout2d drops whole channels: within a channel all values are 0 or all are kept.
  Tensor z = nn::Dropout2d(0.5)(ones({64, 32, 3, 3}));
  Tensor per_channel = z.reshape({64 * 32, 9});
  Tensor zeros_per_channel = (per_channel == 0).sum(std::vector<int64_t>{1});
  EXPECT_TRUE(((zeros_per_channel == 0) | (zeros_per_channel == 9)).all().item<bool>());
  const double channels_dropped = (zeros_per_channel == 9).to(kDouble).mean().item<double>();
  EXPECT_NEAR(channels_dropped, 0.5, 0.05);

  // AlphaDropout keeps a standard normal input at mean 0, std 1.
  Tensor a = nn::AlphaDropout(0.2)(randn({n}));
  EXPECT_NEAR(a.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(a.std().item<double>(), 1.0, 0.02);
}

TEST(DropoutModules, InplaceWritesTheInput) {
  nn::Dropout drop(nn::DropoutOptions(0.5).inplace(true));
  Tensor x = ones({100});
  Tensor y = drop(x);
  EXPECT_EQ(y.data_ptr(), x.data_ptr());
  EXPECT_GT((x == 0).sum().item<int64_t>(), 0);
  // The alpha variants never work in place (as PyTorch): the input is untouched.
  nn::AlphaDropout alpha(nn::AlphaDropoutOptions(0.5).inplace(true));
  Tensor u = ones({100});
  alpha(u);
  EXPECT_TRUE(equal(u, ones({100})));
}

TEST(DropoutModules, PrettyPrint) {
  EXPECT_EQ(printed(*nn::Dropout()), "ember::nn::Dropout(p=0.5, inplace=false)");
  EXPECT_EQ(printed(*nn::Dropout(nn::DropoutOptions(0.2).inplace(true))),
            "ember::nn::Dropout(p=0.2, inplace=true)");
  EXPECT_EQ(printed(*nn::Dropout1d(0.1)), "ember::nn::Dropout1d(p=0.1, inplace=false)");
  EXPECT_EQ(printed(*nn::Dropout2d(0.25)), "ember::nn::Dropout2d(p=0.25, inplace=false)");
  EXPECT_EQ(printed(*nn::Dropout3d()), "ember::nn::Dropout3d(p=0.5, inplace=false)");
  EXPECT_EQ(printed(*nn::AlphaDropout(0.3)), "ember::nn::AlphaDropout(p=0.3, inplace=false)");
  EXPECT_EQ(printed(*nn::FeatureAlphaDropout(0.3)),
            "ember::nn::FeatureAlphaDropout(p=0.3, inplace=false)");
}

TEST(DropoutModules, CloneCopiesOptionsAndMode) {
  nn::Dropout drop(0.25);
  drop->eval();
  auto copy = std::dynamic_pointer_cast<nn::DropoutImpl>(drop->clone());
  ASSERT_TRUE(copy);
  EXPECT_NE(copy.get(), drop.get());
  EXPECT_EQ(copy->options.p(), 0.25);
  EXPECT_FALSE(copy->is_training());
  copy->options.p(0.75);
  EXPECT_EQ(drop->options.p(), 0.25);
}

TEST(DropoutModules, WorkAfterToDouble) {
  nn::Sequential seq(nn::Dropout(0.5), nn::AlphaDropout(0.5));
  seq->to(kDouble);
  EXPECT_EQ(seq->forward(randn({8}, kDouble)).dtype(), kDouble);
  EXPECT_TRUE(seq->parameters().empty());
  EXPECT_TRUE(seq->state_dict().is_empty());
}

TEST(DropoutModules, ErrorsNameTheModule) {
  expect_error<ValueError>([] { nn::Dropout(1.5); },
                           {"Dropout: dropout probability has to be between 0 and 1, but got 1.5"});
  expect_error<ValueError>([] { nn::Dropout2d(-0.1); }, {"Dropout2d: dropout probability"});
  expect_error<ValueError>([] { nn::FeatureAlphaDropout(2.0); },
                           {"FeatureAlphaDropout: dropout probability"});
  // A wrong rank: the functional form's message, led by the module's name.
  nn::Dropout2d d2;
  expect_error([&] { d2(ones({5})); },
               {"Dropout2d: dropout2d: expected a 3-D or 4-D input", "[5]"});
  nn::Dropout1d d1;
  expect_error([&] { d1(ones({2, 3, 4, 5})); }, {"Dropout1d: ", "[2, 3, 4, 5]"});
  nn::Dropout3d d3;
  expect_error([&] { d3(ones({2, 3})); }, {"Dropout3d: ", "[2, 3]"});
  nn::FeatureAlphaDropout fa;
  expect_error([&] { fa(ones({3})); }, {"FeatureAlphaDropout: ", "[3]"});
}

}  // namespace
