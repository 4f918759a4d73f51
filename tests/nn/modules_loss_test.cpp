// Loss modules (src/nn/modules/loss*.cpp): every module's forward equals its functional form for
// every reduction and the other options; weights are buffers exactly where Python registers them
// (so state_dict keys match and to()/load_state_dict()/clone() reach them); printing; errors that
// name the module.
#include <gtest/gtest.h>

#include "ember/nn/functional/loss.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;
using ember_test::printed;

namespace {

using Keys = std::vector<std::string>;
const std::vector<loss_reduction_t> kReductions = {ember::kNone, ember::kMean, ember::kSum};

std::string tag(const std::string& loss, const loss_reduction_t& r) {
  return loss + " " + enumtype::get_enum_name(r);
}

Tensor class_ids(int64_t n, int64_t classes, uint64_t seed) {
  Generator gen(seed);
  return (rand({n}, gen) * classes).floor().clamp_max(classes - 1).to(kLong);
}

Tensor signs(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return where(rand(shape, gen) > 0.5, ones(shape), -ones(shape));
}

TEST(LossModules, RegressionForwardEqualsFunctional) {
  Generator gen(1);
  Tensor x = randn({4, 5}, gen), y = randn({4, 5}, gen);
  Tensor log_p = randn({4, 5}, gen).log_softmax(1), q = randn({4, 5}, gen).softmax(1);
  Tensor counts = (rand({4, 5}, gen) * 5).floor(), rate = rand({4, 5}, gen) + 0.1;
  Tensor var = rand({4, 5}, gen) + 0.1, var1 = rand({4, 1}, gen) + 0.1;
  for (const auto& r : kReductions) {
    expect_same(nn::L1Loss(nn::L1LossOptions().reduction(r))(x, y),
                F::l1_loss(x, y, F::L1LossFuncOptions().reduction(r)), tag("L1Loss", r));
    expect_same(nn::MSELoss(nn::MSELossOptions().reduction(r))(x, y),
                F::mse_loss(x, y, F::MSELossFuncOptions().reduction(r)), tag("MSELoss", r));
    expect_same(nn::HuberLoss(nn::HuberLossOptions().reduction(r).delta(0.5))(x, y),
                F::huber_loss(x, y, F::HuberLossFuncOptions().reduction(r).delta(0.5)),
                tag("HuberLoss", r));
    expect_same(nn::SmoothL1Loss(nn::SmoothL1LossOptions().reduction(r).beta(0.5))(x, y),
                F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().reduction(r).beta(0.5)),
                tag("SmoothL1Loss", r));
    expect_same(
        nn::PoissonNLLLoss(nn::PoissonNLLLossOptions().reduction(r).full(true))(x, counts),
        F::poisson_nll_loss(x, counts, F::PoissonNLLLossFuncOptions().reduction(r).full(true)),
        tag("PoissonNLLLoss", r));
    expect_same(
        nn::PoissonNLLLoss(nn::PoissonNLLLossOptions().reduction(r).log_input(false))(rate, counts),
        F::poisson_nll_loss(rate, counts,
                            F::PoissonNLLLossFuncOptions().reduction(r).log_input(false)),
        tag("PoissonNLLLoss rate", r));
    expect_same(nn::GaussianNLLLoss(nn::GaussianNLLLossOptions().reduction(r))(x, y, var),
                F::gaussian_nll_loss(x, y, var, F::GaussianNLLLossFuncOptions().reduction(r)),
                tag("GaussianNLLLoss", r));
    expect_same(nn::GaussianNLLLoss(nn::GaussianNLLLossOptions().reduction(r).full(true).eps(1e-3))(
                    x, y, var1),
                F::gaussian_nll_loss(
                    x, y, var1, F::GaussianNLLLossFuncOptions().reduction(r).full(true).eps(1e-3)),
                tag("GaussianNLLLoss per-sample var", r));
  }
  const std::vector<nn::KLDivLossOptions::reduction_t> kl_reductions = {
      ember::kNone, ember::kBatchMean, ember::kSum, ember::kMean};
  for (const auto& r : kl_reductions) {
    for (bool log_target : {false, true}) {
      Tensor target = log_target ? q.log() : q;
      expect_same(
          nn::KLDivLoss(nn::KLDivLossOptions().reduction(r).log_target(log_target))(log_p, target),
          F::kl_div(log_p, target, F::KLDivFuncOptions().reduction(r).log_target(log_target)),
          "KLDivLoss " + enumtype::get_enum_name(r));
    }
  }
}

TEST(LossModules, ClassificationForwardEqualsFunctional) {
  Generator gen(2);
  Tensor logits = randn({6, 5}, gen), log_p = logits.log_softmax(1);
  Tensor target = class_ids(6, 5, 3);
  Tensor class_w = rand({5}, gen) + 0.5;
  Tensor probs = randn({6, 5}, gen).softmax(1);
  Tensor spatial = randn({2, 5, 3}, gen), spatial_t = class_ids(6, 5, 4).reshape({2, 3});
  Tensor p = randn({6, 5}, gen).sigmoid(), t01 = rand({6, 5}, gen);
  Tensor elem_w = rand({6, 5}, gen), pos_w = rand({5}, gen) * 3;
  for (const auto& r : kReductions) {
    auto nll = nn::NLLLossOptions().reduction(r).weight(class_w).ignore_index(1);
    expect_same(nn::NLLLoss(nll)(log_p, target), F::nll_loss(log_p, target, nll),
                tag("NLLLoss", r));
    expect_same(
        nn::NLLLoss(nn::NLLLossOptions().reduction(r))(spatial.log_softmax(1), spatial_t),
        F::nll_loss(spatial.log_softmax(1), spatial_t, F::NLLLossFuncOptions().reduction(r)),
        tag("NLLLoss [N, C, d]", r));
    auto ce = nn::CrossEntropyLossOptions().reduction(r).weight(class_w).label_smoothing(0.1);
    expect_same(nn::CrossEntropyLoss(ce)(logits, target), F::cross_entropy(logits, target, ce),
                tag("CrossEntropyLoss", r));
    expect_same(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().reduction(r))(logits, probs),
                F::cross_entropy(logits, probs, F::CrossEntropyFuncOptions().reduction(r)),
                tag("CrossEntropyLoss probabilities", r));
    expect_same(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().reduction(r).ignore_index(0))(
                    spatial, spatial_t),
                F::cross_entropy(spatial, spatial_t,
                                 F::CrossEntropyFuncOptions().reduction(r).ignore_index(0)),
                tag("CrossEntropyLoss [N, C, d]", r));
    auto bce = nn::BCELossOptions().reduction(r).weight(elem_w);
    expect_same(nn::BCELoss(bce)(p, t01), F::binary_cross_entropy(p, t01, bce), tag("BCELoss", r));
    expect_same(nn::BCELoss(nn::BCELossOptions().reduction(r))(p, t01),
                F::binary_cross_entropy(p, t01, F::BinaryCrossEntropyFuncOptions().reduction(r)),
                tag("BCELoss unweighted", r));
    auto bcel = nn::BCEWithLogitsLossOptions().reduction(r).weight(class_w).pos_weight(pos_w);
    expect_same(nn::BCEWithLogitsLoss(bcel)(logits, t01),
                F::binary_cross_entropy_with_logits(logits, t01, bcel),
                tag("BCEWithLogitsLoss", r));
    expect_same(nn::BCEWithLogitsLoss(nn::BCEWithLogitsLossOptions().reduction(r))(logits, t01),
                F::binary_cross_entropy_with_logits(
                    logits, t01, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(r)),
                tag("BCEWithLogitsLoss plain", r));
  }
}

TEST(LossModules, MarginAndEmbeddingForwardEqualsFunctional) {
  Generator gen(5);
  Tensor x = randn({6, 5}, gen), x2 = randn({6, 5}, gen), x3 = randn({6, 5}, gen);
  Tensor pm = signs({6, 5}, 6), pm_rows = signs({6}, 7);
  Tensor t01 = (rand({6, 5}, gen) > 0.5).to(kFloat), class_w = rand({5}, gen) + 0.5;
  Tensor target = class_ids(6, 5, 8);
  Tensor multilabel = tensor({{0, 3, -1, 1, 1},
                              {4, -1, 0, 0, 0},
                              {1, 2, 3, 4, 0},
                              {-1, 0, 0, 0, 0},
                              {2, 2, -1, 0, 0},
                              {0, 1, 2, -1, 4}});
  Tensor a = randn({6, 5}, gen).select(1, 0);
  auto cos_dist = [](const Tensor& u, const Tensor& v) {
    return 1 - (u * v).sum({1}) / (u.norm(2, {1}) * v.norm(2, {1}));
  };
  for (const auto& r : kReductions) {
    expect_same(nn::SoftMarginLoss(nn::SoftMarginLossOptions().reduction(r))(x, pm),
                F::soft_margin_loss(x, pm, F::SoftMarginLossFuncOptions().reduction(r)),
                tag("SoftMarginLoss", r));
    auto mlsm = nn::MultiLabelSoftMarginLossOptions().reduction(r).weight(class_w);
    expect_same(nn::MultiLabelSoftMarginLoss(mlsm)(x, t01),
                F::multilabel_soft_margin_loss(x, t01, mlsm), tag("MultiLabelSoftMarginLoss", r));
    auto mm = nn::MultiMarginLossOptions().reduction(r).p(2).margin(0.5).weight(class_w);
    expect_same(nn::MultiMarginLoss(mm)(x, target), F::multi_margin_loss(x, target, mm),
                tag("MultiMarginLoss", r));
    expect_same(
        nn::MultiLabelMarginLoss(nn::MultiLabelMarginLossOptions().reduction(r))(x, multilabel),
        F::multilabel_margin_loss(x, multilabel, F::MultilabelMarginLossFuncOptions().reduction(r)),
        tag("MultiLabelMarginLoss", r));
    auto mr = nn::MarginRankingLossOptions().reduction(r).margin(0.2);
    expect_same(nn::MarginRankingLoss(mr)(a, x.select(1, 1), pm_rows),
                F::margin_ranking_loss(a, x.select(1, 1), pm_rows, mr),
                tag("MarginRankingLoss", r));
    auto he = nn::HingeEmbeddingLossOptions().reduction(r).margin(0.5);
    expect_same(nn::HingeEmbeddingLoss(he)(x, pm), F::hinge_embedding_loss(x, pm, he),
                tag("HingeEmbeddingLoss", r));
    auto ce = nn::CosineEmbeddingLossOptions().reduction(r).margin(0.1);
    expect_same(nn::CosineEmbeddingLoss(ce)(x, x2, pm_rows),
                F::cosine_embedding_loss(x, x2, pm_rows, ce), tag("CosineEmbeddingLoss", r));
    auto tm = nn::TripletMarginLossOptions().reduction(r).margin(0.5).p(1).swap(true);
    expect_same(nn::TripletMarginLoss(tm)(x, x2, x3), F::triplet_margin_loss(x, x2, x3, tm),
                tag("TripletMarginLoss", r));
    auto twd = nn::TripletMarginWithDistanceLossOptions().reduction(r).distance_function(cos_dist);
    expect_same(nn::TripletMarginWithDistanceLoss(twd)(x, x2, x3),
                F::triplet_margin_with_distance_loss(x, x2, x3, twd),
                tag("TripletMarginWithDistanceLoss", r));
    auto twd_default = nn::TripletMarginWithDistanceLossOptions().reduction(r).swap(true);
    expect_same(nn::TripletMarginWithDistanceLoss(twd_default)(x, x2, x3),
                F::triplet_margin_with_distance_loss(x, x2, x3, twd_default),
                tag("TripletMarginWithDistanceLoss default distance", r));
  }
}

TEST(LossModules, CTCForwardEqualsFunctional) {
  Generator gen(9);
  Tensor log_probs = randn({6, 2, 4}, gen).log_softmax(2);
  Tensor targets = tensor({{1, 2, 3}, {3, 1, 0}});
  Tensor input_lengths = tensor({6, 5}), target_lengths = tensor({3, 2});
  for (const auto& r : kReductions) {
    for (bool zero_infinity : {false, true}) {
      auto o = nn::CTCLossOptions().reduction(r).blank(0).zero_infinity(zero_infinity);
      expect_same(nn::CTCLoss(o)(log_probs, targets, input_lengths, target_lengths),
                  F::ctc_loss(log_probs, targets, input_lengths, target_lengths, o),
                  tag("CTCLoss", r));
    }
  }
}

// ---- Buffers ----

TEST(LossModules, WeightsAreBuffersWherePythonRegistersThem) {
  Tensor w = rand({5});
  // Python's _WeightedLoss registers "weight" even when it is None: the name is taken, but
  // state_dict has no key for it.
  nn::CrossEntropyLoss plain;
  EXPECT_TRUE(plain->state_dict().is_empty());
  EXPECT_TRUE(plain->buffers().empty());
  expect_error([&] { plain->register_buffer("weight", ones({1})); }, {"weight"});

  EXPECT_EQ(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().weight(w))->state_dict().keys(),
            Keys{"weight"});
  EXPECT_EQ(nn::NLLLoss(nn::NLLLossOptions().weight(w))->state_dict().keys(), Keys{"weight"});
  EXPECT_EQ(nn::BCELoss(nn::BCELossOptions().weight(w))->state_dict().keys(), Keys{"weight"});
  EXPECT_EQ(nn::MultiMarginLoss(nn::MultiMarginLossOptions().weight(w))->state_dict().keys(),
            Keys{"weight"});
  EXPECT_EQ(nn::MultiLabelSoftMarginLoss(nn::MultiLabelSoftMarginLossOptions().weight(w))
                ->state_dict()
                .keys(),
            Keys{"weight"});
  EXPECT_EQ(
      nn::BCEWithLogitsLoss(nn::BCEWithLogitsLossOptions().pos_weight(w))->state_dict().keys(),
      Keys{"pos_weight"});
  nn::BCEWithLogitsLoss both(nn::BCEWithLogitsLossOptions().pos_weight(w * 2).weight(w));
  EXPECT_EQ(both->state_dict().keys(), (Keys{"weight", "pos_weight"}));
  EXPECT_TRUE(both->weight.is_same(both->named_buffers()["weight"]));
  EXPECT_TRUE(both->pos_weight.is_same(both->named_buffers()["pos_weight"]));
  EXPECT_TRUE(both->parameters().empty());
  for (const char* name : {"weight", "pos_weight"}) {
    nn::BCEWithLogitsLoss none;
    expect_error([&] { none->register_buffer(name, ones({1})); }, {name});
  }
}

TEST(LossModules, BuffersFollowToLoadAndClone) {
  Tensor logits = randn({4, 3}, kDouble);
  Tensor target = tensor({0, 2, 1, 2});
  nn::CrossEntropyLoss loss(nn::CrossEntropyLossOptions().weight(tensor({1.0f, 2.0f, 3.0f})));
  loss->to(kDouble);
  EXPECT_EQ(loss->weight.dtype(), kDouble);
  expect_same(
      loss(logits, target),
      F::cross_entropy(logits, target,
                       F::CrossEntropyFuncOptions().weight(tensor({1.0, 2.0, 3.0}, kDouble))),
      "CrossEntropyLoss after to(kDouble)");

  // load_state_dict copies into the buffer, and forward uses it.
  nn::StateDict sd;
  sd.insert("weight", tensor({5.0, 0.5, 1.0}, kDouble));
  loss->load_state_dict(sd);
  expect_same(
      loss(logits, target),
      F::cross_entropy(logits, target,
                       F::CrossEntropyFuncOptions().weight(tensor({5.0, 0.5, 1.0}, kDouble))),
      "CrossEntropyLoss after load_state_dict");

  // A clone owns its buffer.
  auto copy = std::dynamic_pointer_cast<nn::CrossEntropyLossImpl>(loss->clone());
  ASSERT_TRUE(copy);
  EXPECT_NE(copy->weight.data_ptr(), loss->weight.data_ptr());
  EXPECT_TRUE(copy->weight.is_same(copy->named_buffers()["weight"]));
  copy->weight.fill_(1.0);
  EXPECT_EQ(loss->weight[0].item<double>(), 5.0);
  expect_same(copy->forward(logits, target), F::cross_entropy(logits, target),
              "clone with unit weights");

  nn::BCEWithLogitsLoss bce(nn::BCEWithLogitsLossOptions().pos_weight(full({3}, 2.0)));
  bce->to(kDouble);
  EXPECT_EQ(bce->pos_weight.dtype(), kDouble);
  EXPECT_FALSE(bce->weight.defined());
  Tensor t01 = rand({4, 3}, kDouble);
  expect_same(bce(logits, t01),
              F::binary_cross_entropy_with_logits(
                  logits, t01,
                  F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(full({3}, 2.0, kDouble))),
              "BCEWithLogitsLoss after to(kDouble)");
}

TEST(LossModules, PrettyPrint) {
  EXPECT_EQ(printed(*nn::L1Loss()), "ember::nn::L1Loss()");
  EXPECT_EQ(printed(*nn::MSELoss()), "ember::nn::MSELoss()");
  EXPECT_EQ(printed(*nn::HuberLoss()), "ember::nn::HuberLoss()");
  EXPECT_EQ(printed(*nn::SmoothL1Loss()), "ember::nn::SmoothL1Loss()");
  EXPECT_EQ(printed(*nn::KLDivLoss()), "ember::nn::KLDivLoss()");
  EXPECT_EQ(printed(*nn::PoissonNLLLoss()), "ember::nn::PoissonNLLLoss()");
  EXPECT_EQ(printed(*nn::GaussianNLLLoss()), "ember::nn::GaussianNLLLoss()");
  EXPECT_EQ(printed(*nn::NLLLoss()), "ember::nn::NLLLoss()");
  EXPECT_EQ(printed(*nn::CrossEntropyLoss()), "ember::nn::CrossEntropyLoss()");
  EXPECT_EQ(printed(*nn::BCELoss()), "ember::nn::BCELoss()");
  EXPECT_EQ(printed(*nn::BCEWithLogitsLoss()), "ember::nn::BCEWithLogitsLoss()");
  EXPECT_EQ(printed(*nn::SoftMarginLoss()), "ember::nn::SoftMarginLoss()");
  EXPECT_EQ(printed(*nn::MultiLabelSoftMarginLoss()), "ember::nn::MultiLabelSoftMarginLoss()");
  EXPECT_EQ(printed(*nn::MultiLabelMarginLoss()), "ember::nn::MultiLabelMarginLoss()");
  EXPECT_EQ(printed(*nn::MultiMarginLoss()),
            "ember::nn::MultiMarginLoss(p=1, margin=1, weight=[ Tensor (undefined) ], "
            "reduction=kMean)");
  EXPECT_EQ(printed(*nn::MarginRankingLoss()), "ember::nn::MarginRankingLoss()");
  EXPECT_EQ(printed(*nn::HingeEmbeddingLoss(nn::HingeEmbeddingLossOptions().margin(2))),
            "ember::nn::HingeEmbeddingLoss(margin=2)");
  EXPECT_EQ(printed(*nn::CosineEmbeddingLoss(nn::CosineEmbeddingLossOptions().margin(0.5))),
            "ember::nn::CosineEmbeddingLoss(margin=0.5)");
  EXPECT_EQ(printed(*nn::TripletMarginLoss()),
            "ember::nn::TripletMarginLoss(margin=1, p=2, eps=1e-06, swap=false)");
  EXPECT_EQ(printed(*nn::TripletMarginWithDistanceLoss(
                nn::TripletMarginWithDistanceLossOptions().margin(0.3).swap(true))),
            "ember::nn::TripletMarginWithDistanceLoss(margin=0.3, swap=true)");
  EXPECT_EQ(printed(*nn::CTCLoss()), "ember::nn::CTCLoss()");
}

TEST(LossModules, ErrorsNameTheModule) {
  nn::CrossEntropyLoss ce;
  expect_error<ValueError>(
      [&] {
        ce(zeros({4, 10}), zeros({3}, kLong));
      },
      {"CrossEntropyLoss: cross_entropy: target has 3 elements but input batch is 4"});
  nn::MSELoss mse;
  expect_error([&] { mse(zeros({4}), zeros({3})); }, {"MSELoss: mse_loss:"});
  nn::CTCLoss ctc;
  expect_error(
      [&] {
        ctc(zeros({5, 3}), zeros({2}, kLong), zeros({2}, kLong), zeros({2}, kLong));
      },
      {"CTCLoss: ctc_loss:"});
  expect_error<ValueError>(
      [] { nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(3)); },
      {"MultiMarginLoss: only p == 1 and p == 2 are supported, but got p = 3"});
  expect_error<ValueError>(
      [] {
        nn::MultiMarginLoss(nn::MultiMarginLossOptions().weight(ones({2, 2})));
      },
      {"MultiMarginLoss: weight must be a 1-D tensor", "[2, 2] float32"});
}

}  // namespace
