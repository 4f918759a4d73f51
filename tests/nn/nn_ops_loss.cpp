// The losses' entries of the nn op table (tests/nn/nn_op_info.h): each decodes a case of
// tests/golden/nn_loss.golden (layout: tests/golden/gen/nn_loss.py) into F::<loss> and its
// options. q0 is the reduction, flags name optional tensors and bool options, sargs/iargs are the
// remaining options in the order of the case's call.
#include <stdexcept>
#include <type_traits>

#include "ember/nn/functional/loss.h"
#include "tests/nn/nn_op_info.h"

namespace {

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;

template <class Variant>
Variant reduction(const GoldenCase& c) {
  const std::string& r = c.strs.at(0);
  if (r == "none") return ember::kNone;
  if (r == "mean") return ember::kMean;
  if (r == "sum") return ember::kSum;
  if constexpr (std::is_constructible_v<Variant, ember::enumtype::kBatchMean>)
    if (r == "batchmean") return ember::kBatchMean;
  throw std::runtime_error(c.name + ": unknown reduction " + r);
}

// The optional tensors after the op's `n` required args: weight, then pos_weight, when flagged.
struct Optional {
  Tensor weight, pos_weight;
};
Optional optional_args(const Args& a, const GoldenCase& c, size_t n) {
  Optional o;
  if (c.has_flag("weight")) o.weight = a.at(n++);
  if (c.has_flag("pos_weight")) o.pos_weight = a.at(n++);
  return o;
}

#define RED(Options) reduction<F::Options::reduction_t>(c)

Tensor cross_entropy_run(const Args& a, const GoldenCase& c) {
  return F::cross_entropy(a[0], a[1],
                          F::CrossEntropyFuncOptions()
                              .weight(optional_args(a, c, 2).weight)
                              .ignore_index(c.ints.at(0))
                              .reduction(RED(CrossEntropyFuncOptions))
                              .label_smoothing(c.scalars.at(0)));
}

}  // namespace

EMBER_NN_OP_FAMILY(loss) {
  return {
      nn_op("l1_loss", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::l1_loss(a[0], a[1],
                                F::L1LossFuncOptions().reduction(RED(L1LossFuncOptions)));
            }),
      nn_op("mse_loss", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::mse_loss(a[0], a[1],
                                 F::MSELossFuncOptions().reduction(RED(MSELossFuncOptions)));
            }),
      nn_op("huber_loss", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::huber_loss(a[0], a[1],
                                   F::HuberLossFuncOptions()
                                       .reduction(RED(HuberLossFuncOptions))
                                       .delta(c.scalars.at(0)));
            }),
      nn_op("smooth_l1_loss", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::smooth_l1_loss(a[0], a[1],
                                       F::SmoothL1LossFuncOptions()
                                           .reduction(RED(SmoothL1LossFuncOptions))
                                           .beta(c.scalars.at(0)));
            }),
      nn_op("kl_div", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::kl_div(a[0], a[1],
                               F::KLDivFuncOptions()
                                   .reduction(RED(KLDivFuncOptions))
                                   .log_target(c.has_flag("log_target")));
            }),
      nn_op("poisson_nll_loss", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::poisson_nll_loss(a[0], a[1],
                                         F::PoissonNLLLossFuncOptions()
                                             .log_input(!c.has_flag("no_log_input"))
                                             .full(c.has_flag("full"))
                                             .eps(c.scalars.at(0))
                                             .reduction(RED(PoissonNLLLossFuncOptions)));
            }),
      nn_op("gaussian_nll_loss", "nn_loss", {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return F::gaussian_nll_loss(a[0], a[1], a[2],
                                          F::GaussianNLLLossFuncOptions()
                                              .full(c.has_flag("full"))
                                              .eps(c.scalars.at(0))
                                              .reduction(RED(GaussianNLLLossFuncOptions)));
            }),
      nn_op("nll_loss", "nn_loss", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::nll_loss(a[0], a[1],
                                 F::NLLLossFuncOptions()
                                     .weight(optional_args(a, c, 2).weight)
                                     .ignore_index(c.ints.at(0))
                                     .reduction(RED(NLLLossFuncOptions)));
            }),
      nn_op("cross_entropy", "nn_loss", {0}, cross_entropy_run),
      // The same function with class-probability targets, which get gradients too.
      nn_op("cross_entropy_probs", "nn_loss", {0, 1}, cross_entropy_run),
      nn_op("binary_cross_entropy", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::binary_cross_entropy(a[0], a[1],
                                             F::BinaryCrossEntropyFuncOptions()
                                                 .weight(optional_args(a, c, 2).weight)
                                                 .reduction(RED(BinaryCrossEntropyFuncOptions)));
            }),
      nn_op("binary_cross_entropy_with_logits", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              Optional o = optional_args(a, c, 2);
              return F::binary_cross_entropy_with_logits(
                  a[0], a[1],
                  F::BinaryCrossEntropyWithLogitsFuncOptions()
                      .weight(o.weight)
                      .pos_weight(o.pos_weight)
                      .reduction(RED(BinaryCrossEntropyWithLogitsFuncOptions)));
            }),
      nn_op("soft_margin_loss", "nn_loss", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::soft_margin_loss(
                  a[0], a[1],
                  F::SoftMarginLossFuncOptions().reduction(RED(SoftMarginLossFuncOptions)));
            }),
      nn_op("multilabel_soft_margin_loss", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::multilabel_soft_margin_loss(
                  a[0], a[1],
                  F::MultilabelSoftMarginLossFuncOptions()
                      .weight(optional_args(a, c, 2).weight)
                      .reduction(RED(MultilabelSoftMarginLossFuncOptions)));
            }),
      nn_op("multi_margin_loss", "nn_loss", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::multi_margin_loss(a[0], a[1],
                                          F::MultiMarginLossFuncOptions()
                                              .p(c.ints.at(0))
                                              .margin(c.scalars.at(0))
                                              .weight(optional_args(a, c, 2).weight)
                                              .reduction(RED(MultiMarginLossFuncOptions)));
            }),
      nn_op("multilabel_margin_loss", "nn_loss", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::multilabel_margin_loss(a[0], a[1],
                                               F::MultilabelMarginLossFuncOptions().reduction(
                                                   RED(MultilabelMarginLossFuncOptions)));
            }),
      nn_op("margin_ranking_loss", "nn_loss", {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return F::margin_ranking_loss(a[0], a[1], a[2],
                                            F::MarginRankingLossFuncOptions()
                                                .margin(c.scalars.at(0))
                                                .reduction(RED(MarginRankingLossFuncOptions)));
            }),
      nn_op("hinge_embedding_loss", "nn_loss", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::hinge_embedding_loss(a[0], a[1],
                                             F::HingeEmbeddingLossFuncOptions()
                                                 .margin(c.scalars.at(0))
                                                 .reduction(RED(HingeEmbeddingLossFuncOptions)));
            }),
      nn_op("cosine_embedding_loss", "nn_loss", {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::cosine_embedding_loss(a[0], a[1], a[2],
                                              F::CosineEmbeddingLossFuncOptions()
                                                  .margin(c.scalars.at(0))
                                                  .reduction(RED(CosineEmbeddingLossFuncOptions)));
            }),
      nn_op("triplet_margin_loss", "nn_loss", {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return F::triplet_margin_loss(a[0], a[1], a[2],
                                            F::TripletMarginLossFuncOptions()
                                                .margin(c.scalars.at(0))
                                                .p(c.scalars.at(1))
                                                .eps(c.scalars.at(2))
                                                .swap(c.has_flag("swap"))
                                                .reduction(RED(TripletMarginLossFuncOptions)));
            }),
      nn_op("triplet_margin_with_distance_loss", "nn_loss", {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return F::triplet_margin_with_distance_loss(
                  a[0], a[1], a[2],
                  F::TripletMarginWithDistanceLossFuncOptions()
                      .margin(c.scalars.at(0))
                      .swap(c.has_flag("swap"))
                      .reduction(RED(TripletMarginWithDistanceLossFuncOptions)));
            }),
      // Cases pass logits through log_softmax(-1) (flag `raw`: a0 is log_probs itself), so the
      // float64 gradcheck on the first case checks the true gradient of the whole.
      nn_op("ctc_loss", "nn_loss", {0},
            [](const Args& a, const GoldenCase& c) {
              Tensor lp = c.has_flag("raw") ? a[0] : a[0].log_softmax(-1);
              return F::ctc_loss(lp, a[1], a[2], a[3],
                                 F::CTCLossFuncOptions()
                                     .blank(c.ints.at(0))
                                     .reduction(RED(CTCLossFuncOptions))
                                     .zero_infinity(c.has_flag("zero_infinity")));
            }),
  };
}
