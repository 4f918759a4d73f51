// Losses (src/nn/functional/loss_*.cpp) beyond the golden table (tests/nn/nn_ops_loss.cpp): the
// options API, the error messages, and behaviour PyTorch defines at the edges (ignored targets,
// clamped logs, overflow, empty batches, dtypes, double backward).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ember/ember.h"
#include "ember/nn/functional/loss.h"
#include "tests/support/expect_error.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

using ember_test::expect_error;

double value(const Tensor& t) { return t.item<double>(); }

Tensor randn_d(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, gen, kDouble);
}

// ---- Options ----

TEST(LossOptions, DefaultsMatchLibTorch) {
  nn::CrossEntropyLossOptions ce;
  EXPECT_EQ(ce.ignore_index(), -100);
  EXPECT_EQ(ce.label_smoothing(), 0.0);
  EXPECT_FALSE(ce.weight().defined());
  EXPECT_TRUE(std::holds_alternative<enumtype::kMean>(ce.reduction()));
  EXPECT_EQ(nn::TripletMarginLossOptions().p(), 2.0);
  EXPECT_EQ(nn::TripletMarginLossOptions().eps(), 1e-6);
  EXPECT_EQ(nn::PoissonNLLLossOptions().eps(), 1e-8);
  EXPECT_TRUE(nn::PoissonNLLLossOptions().log_input());
  EXPECT_EQ(nn::CTCLossOptions().blank(), 0);
  EXPECT_EQ(nn::HuberLossOptions().delta(), 1.0);
  EXPECT_EQ(nn::SmoothL1LossOptions().beta(), 1.0);
  EXPECT_EQ(nn::MultiMarginLossOptions().p(), 1);
  EXPECT_EQ(enumtype::get_enum_name(nn::KLDivLossOptions(kBatchMean).reduction()), "kBatchMean");
}

TEST(LossOptions, ReductionTagConvertsToOptions) {
  Tensor x = tensor({1.0, -2.0, 3.0}), y = tensor({0.0, 0.0, 0.0});
  EXPECT_DOUBLE_EQ(value(F::l1_loss(x, y, kSum)), 6.0);
  EXPECT_FLOAT_EQ(value(F::mse_loss(x, y, kMean)), 14.0f / 3);
  EXPECT_EQ(F::l1_loss(x, y, kNone).sizes(), IntArrayRef({3}));
  F::CrossEntropyFuncOptions opts =
      F::CrossEntropyFuncOptions().ignore_index(1).label_smoothing(0.1);
  EXPECT_EQ(opts.ignore_index(), 1);
  EXPECT_DOUBLE_EQ(opts.label_smoothing(), 0.1);
}

TEST(LossOptions, SmoothL1ExplicitBetaOverridesOptions) {
  Tensor x = tensor({0.5, 3.0}), y = zeros({2});
  // beta 2: 0.5^2 / 4 = 0.0625 and 3 - 1 = 2.
  Tensor a = F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions(kNone), 2.0);
  Tensor b = F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions(kNone).beta(2.0));
  EXPECT_TRUE(allclose(a, tensor({0.0625, 2.0})));
  EXPECT_TRUE(allclose(a, b));
}

// ---- Errors: class-index losses ----

TEST(LossErrors, CrossEntropyTargetBatchMismatchNamesShapes) {
  expect_error<ValueError>(
      [] {
        F::cross_entropy(zeros({4, 10}), zeros({3}, kLong));
      },
      {"cross_entropy: target has 3 elements but input batch is 4: input [4, 10] float32, "
       "target [3] int64"});
}

TEST(LossErrors, ClassIndexTargetMustBeInt64) {
  expect_error<TypeError>(
      [] {
        F::nll_loss(zeros({4, 5}), zeros({4}, kInt));
      },
      {"nll_loss: class-index target must be int64", "[4] int32", "input [4, 5] float32"});
  expect_error<TypeError>(
      [] {
        F::cross_entropy(zeros({4, 5}), zeros({4}));
      },
      {"cross_entropy: class-index target must be int64", "[4] float32"});
}

TEST(LossErrors, TargetClassOutOfRangeNamesValueAndC) {
  expect_error<IndexError>(
      [] {
        F::cross_entropy(zeros({3, 5}), tensor({1, 7, 2}));
      },
      {"cross_entropy: target class 7 is out of range for 5 classes", "0 to 4",
       "ignore_index -100"});
  expect_error<IndexError>(
      [] {
        F::nll_loss(zeros({2, 5}), tensor({-1, 0}));
      },
      {"nll_loss: target class -1 is out of range"});
  // ignore_index may lie outside [0, C) and is then not an error.
  EXPECT_NO_THROW(
      F::nll_loss(zeros({2, 5}), tensor({-1, 0}), F::NLLLossFuncOptions().ignore_index(-1)));
}

TEST(LossErrors, KDimTargetShapeNamesExpectedShape) {
  expect_error<ValueError>(
      [] {
        F::cross_entropy(zeros({2, 3, 4, 5}), zeros({2, 4}, kLong));
      },
      {"cross_entropy: class-index target must have shape [2, 4, 5]", "input [2, 3, 4, 5] float32",
       "target [2, 4] int64"});
  expect_error<ValueError>([] { F::nll_loss(zeros({5}), zeros({1}, kLong)); },
                           {"nll_loss: class-index target must have shape []"});
  expect_error<ValueError>([] { F::nll_loss(zeros({}), zeros({}, kLong)); },
                           {"nll_loss: input must have a class dim", "[N, C], [C]"});
}

TEST(LossErrors, ProbabilityTargetsMustBeFloatingWithoutIgnoreIndex) {
  expect_error<TypeError>(
      [] {
        F::cross_entropy(zeros({2, 3}), zeros({2, 3}, kLong));
      },
      {"cross_entropy: a target of the input's shape holds class "
       "probabilities and must be floating",
       "[2, 3] int64"});
  expect_error<ValueError>(
      [] {
        F::cross_entropy(zeros({2, 3}), zeros({2, 3}),
                         F::CrossEntropyFuncOptions().ignore_index(0));
      },
      {"ignore_index (0) is not supported with class-probability targets"});
}

TEST(LossErrors, WeightAndLabelSmoothing) {
  expect_error<ValueError>(
      [] {
        F::cross_entropy(zeros({2, 5}), zeros({2}, kLong),
                         F::CrossEntropyFuncOptions().weight(ones({4})));
      },
      {"cross_entropy: weight must have one value per class ([5]), got [4] float32"});
  expect_error<ValueError>(
      [] {
        F::cross_entropy(zeros({2, 5}), zeros({2}, kLong),
                         F::CrossEntropyFuncOptions().label_smoothing(1.5));
      },
      {"label_smoothing must be in [0, 1], got 1.5"});
  expect_error<ValueError>(
      [] {
        F::multi_margin_loss(zeros({2, 5}), zeros({2}, kLong),
                             F::MultiMarginLossFuncOptions().weight(ones({2, 5})));
      },
      {"multi_margin_loss: weight must have one value per class ([5])"});
}

// ---- Errors: the other losses ----

TEST(LossErrors, ShapesAndDtypes) {
  expect_error<TypeError>([] { F::mse_loss(zeros({3}, kLong), zeros({3}, kLong)); },
                          {"mse_loss: input must be a floating tensor, got [3] int64"});
  expect_error<ValueError>(
      [] {
        F::l1_loss(zeros({3, 4}), zeros({3}));
      },
      {"l1_loss: input and target shapes do not broadcast",
       "input [3, 4] float32, target [3] float32"});
  expect_error<ValueError>(
      [] {
        F::binary_cross_entropy(full({3, 1}, 0.5), zeros({3}));
      },
      {"binary_cross_entropy: target must have the input's shape",
       "input [3, 1] float32, target [3] float32"});
  expect_error<ValueError>(
      [] {
        F::binary_cross_entropy_with_logits(zeros({3}), zeros({1, 3}));
      },
      {"binary_cross_entropy_with_logits: target must have the input's shape"});
  expect_error<ValueError>(
      [] {
        F::binary_cross_entropy(tensor({0.5, 1.5}), zeros({2}));
      },
      {"binary_cross_entropy: input values must be probabilities in [0, 1]"});
  expect_error<ValueError>(
      [] {
        F::binary_cross_entropy(full({2, 3}, 0.5), zeros({2, 3}),
                                F::BinaryCrossEntropyFuncOptions().weight(ones({2})));
      },
      {"weight must broadcast to the target's shape: weight [2] float32, target [2, 3]"});
}

TEST(LossErrors, OptionValues) {
  expect_error<ValueError>(
      [] { F::huber_loss(zeros({2}), zeros({2}), F::HuberLossFuncOptions().delta(0)); },
      {"huber_loss: delta must be positive, got 0"});
  expect_error<ValueError>(
      [] { F::smooth_l1_loss(zeros({2}), zeros({2}), F::SmoothL1LossFuncOptions().beta(-1)); },
      {"smooth_l1_loss: beta must be non-negative, got -1"});
  expect_error<ValueError>(
      [] {
        F::multi_margin_loss(zeros({2, 3}), zeros({2}, kLong),
                             F::MultiMarginLossFuncOptions().p(3));
      },
      {"multi_margin_loss: p must be 1 or 2, got 3"});
  expect_error<ValueError>(
      [] {
        F::triplet_margin_with_distance_loss(
            zeros({2, 3}), zeros({2, 3}), zeros({2, 3}),
            F::TripletMarginWithDistanceLossFuncOptions().margin(0));
      },
      {"triplet_margin_with_distance_loss: margin must be greater than 0, got 0"});
}

TEST(LossErrors, GaussianNllVarShapeAndSign) {
  expect_error<ValueError>(
      [] {
        F::gaussian_nll_loss(zeros({4, 3}), zeros({4, 3}), ones({4, 2}));
      },
      {"gaussian_nll_loss: var must have the input's shape, or the input's shape with the last "
       "dim 1 or dropped: input [4, 3] float32, var [4, 2] float32"});
  expect_error<ValueError>(
      [] {
        F::gaussian_nll_loss(zeros({2}), zeros({2}), tensor({1.0f, -0.5f}));
      },
      {"gaussian_nll_loss: var has negative entries"});
}

TEST(LossErrors, MarginAndEmbeddingShapes) {
  expect_error<ValueError>(
      [] {
        F::multi_margin_loss(zeros({2, 3}), zeros({3}, kLong));
      },
      {"multi_margin_loss: target must be [2] for input [2, 3] float32, got "
       "target [3] int64"});
  expect_error<ValueError>(
      [] {
        F::multi_margin_loss(zeros({2, 3, 4}), zeros({2}, kLong));
      },
      {"multi_margin_loss: input must be [N, C] or [C], got [2, 3, 4]"});
  expect_error<IndexError>(
      [] {
        F::multilabel_margin_loss(zeros({1, 3}), tensor({{0, 5, -1}}));
      },
      {"multilabel_margin_loss: target class 5 is out of range for 3 classes"});
  expect_error<ValueError>(
      [] {
        F::margin_ranking_loss(zeros({3}), zeros({3}), zeros({1, 3}));
      },
      {"margin_ranking_loss: input1, input2 and target must have the same "
       "number of dims",
       "target [1, 3] float32"});
  expect_error<ValueError>(
      [] {
        F::cosine_embedding_loss(zeros({2, 3}), zeros({2, 3}), zeros({2, 1}));
      },
      {"cosine_embedding_loss: target must be [N] (or 0-dim for one pair), got [2, 1]"});
  expect_error<ValueError>([] { F::cosine_embedding_loss(zeros({3}), zeros({3}), zeros({2})); },
                           {"a [N] target needs [N, D] inputs, got input1 [3] float32"});
  expect_error<ValueError>(
      [] {
        F::triplet_margin_loss(zeros({2, 3}), zeros({2, 3}), zeros({3}));
      },
      {"triplet_margin_loss: anchor, positive and negative must have the same number of dims"});
}

// ---- Behaviour ----

TEST(LossBehaviour, AllIgnoredTargetsGiveNanMeanAndZeroSum) {
  Tensor x = zeros({3, 4}, kDouble).requires_grad_();
  Tensor t = full({3}, -100, kLong);
  EXPECT_TRUE(std::isnan(value(F::nll_loss(x, t))));
  EXPECT_TRUE(std::isnan(value(F::cross_entropy(x, t))));
  EXPECT_EQ(value(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum))), 0.0);
  Tensor none = F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kNone));
  EXPECT_TRUE(equal(none, zeros({3}, kDouble)));
}

TEST(LossBehaviour, IgnoredTargetWithInfiniteLogProbabilityStaysFinite) {
  // Ignored rows read class 0; its -inf must not leak into the loss or the gradient as nan.
  Tensor logp = tensor({{-std::numeric_limits<double>::infinity(), 0.0}, {-0.5, -1.0}}, kDouble)
                    .requires_grad_();
  Tensor t = tensor({-100, 1});
  Tensor loss = F::nll_loss(logp, t);
  EXPECT_DOUBLE_EQ(value(loss), 1.0);
  Tensor g = autograd::grad({loss}, {logp})[0];
  EXPECT_TRUE(equal(g, tensor({{0.0, 0.0}, {0.0, -1.0}}, kDouble)));
}

TEST(LossBehaviour, WeightedMeanDividesBySelectedWeights) {
  Tensor logp = tensor({{-1.0, -2.0}, {-3.0, -4.0}, {-5.0, -6.0}}, kDouble);
  Tensor t = tensor({0, 1, -100});
  Tensor w = tensor({2.0, 0.5}, kDouble);
  // (2 * 1 + 0.5 * 4) / (2 + 0.5); the ignored row adds neither loss nor weight.
  EXPECT_DOUBLE_EQ(value(F::nll_loss(logp, t, F::NLLLossFuncOptions().weight(w))), 4.0 / 2.5);
}

TEST(LossBehaviour, BinaryCrossEntropyClampsLogsAndKeepsGradientsFinite) {
  Tensor x = tensor({0.0, 1.0, 0.0}, kDouble).requires_grad_();
  Tensor t = tensor({1.0, 0.0, 0.0}, kDouble);
  Tensor loss = F::binary_cross_entropy(x, t, F::BinaryCrossEntropyFuncOptions().reduction(kNone));
  EXPECT_TRUE(equal(loss, tensor({100.0, 100.0, 0.0}, kDouble)));
  Tensor g = autograd::grad({loss.sum()}, {x})[0];
  // PyTorch: (x - t) / max(x (1 - x), 1e-12).
  EXPECT_TRUE(allclose(g, tensor({-1e12, 1e12, 0.0}, kDouble)));
}

TEST(LossBehaviour, StableFormsDoNotOverflow) {
  Tensor x = tensor({-1000.0f, 1000.0f});
  Tensor t = tensor({1.0f, 1.0f});
  Tensor bce = F::binary_cross_entropy_with_logits(
      x, t, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kNone));
  EXPECT_TRUE(allclose(bce, tensor({1000.0f, 0.0f})));
  Tensor sm = F::soft_margin_loss(x, t, kNone);  // log(1 + exp(1000)) = 1000, not inf
  EXPECT_TRUE(allclose(sm, tensor({1000.0f, 0.0f})));
}

TEST(LossBehaviour, SoftplusGradientAtZeroIsOneHalf) {
  Tensor x = zeros({1}, kDouble).requires_grad_();
  Tensor loss = F::soft_margin_loss(x, ones({1}, kDouble), kSum);
  EXPECT_DOUBLE_EQ(autograd::grad({loss}, {x})[0].item<double>(), -0.5);
  Tensor l2 = F::binary_cross_entropy_with_logits(x, zeros({1}, kDouble));
  EXPECT_DOUBLE_EQ(autograd::grad({l2}, {x})[0].item<double>(), 0.5);
}

TEST(LossBehaviour, KlDivBatchMeanIsSumOverBatch) {
  Tensor x = log_softmax(randn_d({4, 3}, 1), 1), t = softmax(randn_d({4, 3}, 2), 1);
  double sum = value(F::kl_div(x, t, F::KLDivFuncOptions(kSum)));
  EXPECT_NEAR(value(F::kl_div(x, t, F::KLDivFuncOptions(kBatchMean))), sum / 4, 1e-12);
  EXPECT_NEAR(value(F::kl_div(x, t, F::KLDivFuncOptions(kMean))), sum / 12, 1e-12);
}

TEST(LossBehaviour, PoissonFullKeepsTargetGradientFiniteAtZero) {
  Tensor x = tensor({0.3, -0.2}, kDouble);
  Tensor t = tensor({0.0, 3.0}, kDouble).requires_grad_();
  Tensor loss = F::poisson_nll_loss(x, t, F::PoissonNLLLossFuncOptions().full(true));
  Tensor g = autograd::grad({loss}, {t})[0];
  // d/dt: (-x + [t > 1] (log t + 1/(2t))) / 2
  EXPECT_NEAR(g.select(0, 0).item<double>(), -0.15, 1e-12);
  EXPECT_NEAR(g.select(0, 1).item<double>(), (0.2 + std::log(3.0) + 1.0 / 6) / 2, 1e-12);
}

TEST(LossBehaviour, GaussianNllClampsVarianceButPassesItsGradient) {
  Tensor x = zeros({1}, kDouble), t = ones({1}, kDouble);
  Tensor var = tensor({1e-9}, kDouble).requires_grad_();
  Tensor loss = F::gaussian_nll_loss(x, t, var, F::GaussianNLLLossFuncOptions().eps(0.5));
  EXPECT_NEAR(value(loss), 0.5 * (std::log(0.5) + 2.0), 1e-12);
  // d/dvar of 0.5 (log v + 1 / v) at the clamped v = 0.5: 0.5 (2 - 4) = -1.
  EXPECT_NEAR(autograd::grad({loss}, {var})[0].item<double>(), -1.0, 1e-12);
}

TEST(LossBehaviour, TripletWithCustomDistance) {
  Tensor a = randn_d({3, 4}, 3), p = randn_d({3, 4}, 4), n = randn_d({3, 4}, 5);
  auto cos_dist = [](const Tensor& u, const Tensor& v) {
    return 1 - (u * v).sum({1}) / (u.norm(2, {1}) * v.norm(2, {1}));
  };
  Tensor got = F::triplet_margin_with_distance_loss(a, p, n,
                                                    F::TripletMarginWithDistanceLossFuncOptions()
                                                        .distance_function(cos_dist)
                                                        .margin(0.5)
                                                        .reduction(kNone));
  Tensor want = (0.5 + cos_dist(a, p) - cos_dist(a, n)).clamp_min(0);
  EXPECT_TRUE(allclose(got, want));
}

TEST(LossBehaviour, ReducedPrecisionKeepsDtype) {
  Tensor x = randn_d({4, 5}, 6);
  Tensor t = tensor({0, 3, 1, 4});
  for (ScalarType dt : {kHalf, kBFloat16}) {
    Tensor out = F::cross_entropy(x.to(dt), t);
    EXPECT_EQ(out.scalar_type(), dt);
    EXPECT_NEAR(value(out), value(F::cross_entropy(x, t)), dt == kHalf ? 2e-3 : 2e-2);
    EXPECT_EQ(F::mse_loss(x.to(dt), x.to(dt), kNone).scalar_type(), dt);
  }
  // Mixed: float16 with float32 promotes.
  EXPECT_EQ(F::l1_loss(x.to(kHalf), x.to(kFloat)).scalar_type(), kFloat);
}

TEST(LossBehaviour, EmptyBatches) {
  Tensor x = zeros({0, 3}), t = zeros({0}, kLong);
  EXPECT_TRUE(std::isnan(value(F::cross_entropy(x, t))));
  EXPECT_EQ(value(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum))), 0.0);
  EXPECT_EQ(F::multi_margin_loss(x, t, F::MultiMarginLossFuncOptions().reduction(kNone)).sizes(),
            IntArrayRef({0}));
  EXPECT_TRUE(std::isnan(value(F::mse_loss(x, x))));
  EXPECT_EQ(
      value(F::binary_cross_entropy(x, x, F::BinaryCrossEntropyFuncOptions().reduction(kSum))),
      0.0);
}

TEST(LossBehaviour, DoubleBackward) {
  Tensor x = randn_d({3, 4}, 7).sigmoid(), t = randn_d({3, 4}, 8).sigmoid();
  Tensor logits = randn_d({3, 4}, 9);
  Tensor labels = tensor({1, 0, 3});
  autograd::variable_list in{x.detach().requires_grad_()};
  EXPECT_TRUE(autograd::gradgradcheck(
      [&](const autograd::variable_list& v) {
        return autograd::variable_list{F::binary_cross_entropy(v[0], t)};
      },
      in));
  autograd::variable_list lg{logits.detach().requires_grad_()};
  EXPECT_TRUE(autograd::gradgradcheck(
      [&](const autograd::variable_list& v) {
        return autograd::variable_list{
            F::cross_entropy(v[0], labels, F::CrossEntropyFuncOptions().label_smoothing(0.2))};
      },
      lg));
  EXPECT_TRUE(autograd::gradgradcheck(
      [&](const autograd::variable_list& v) {
        return autograd::variable_list{F::binary_cross_entropy_with_logits(v[0], t)};
      },
      lg));
}

}  // namespace
