// nn op table entries of the layer functionals (golden family "nn_layer"; the layout of each
// op's record is documented in tests/golden/gen/nn_layer.py).
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/normalization.h"
#include "tests/nn/nn_op_info.h"

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;
using ember_test::NnOpInfo;

namespace {

const char* const kFamily = "nn_layer";

// The tensor a flag says is passed, or an undefined one.
Tensor unless(const GoldenCase& c, const char* flag, const Tensor& t) {
  return c.has_flag(flag) ? Tensor() : t;
}

// The dropout family's golden cases are identities (p = 0 or training = false).
template <class Options, class Fn>
NnOpInfo dropout_entry(const char* name, Fn fn) {
  return nn_op(name, kFamily, {0}, [fn](const Args& a, const GoldenCase& c) {
    return fn(a[0], Options().p(c.scalars.at(0)).training(c.scalar_args.at(1).toBool()));
  });
}

ember::nn::EmbeddingBagMode bag_mode(const std::string& s) {
  if (s == "sum") return ember::kSum;
  if (s == "mean") return ember::kMean;
  return ember::kMax;
}

}  // namespace

EMBER_NN_OP_FAMILY(layer) {
  return {
      nn_op("linear", kFamily, {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return F::linear(a[0], a[1], unless(c, "no_bias", a[2]));
            }),
      nn_op("bilinear", kFamily, {0, 1, 2, 3},
            [](const Args& a, const GoldenCase& c) {
              return F::bilinear(a[0], a[1], a[2], unless(c, "no_bias", a[3]));
            }),
      dropout_entry<F::DropoutFuncOptions>(
          "dropout",
          [](const Tensor& x, const F::DropoutFuncOptions& o) { return F::dropout(x, o); }),
      dropout_entry<F::Dropout1dFuncOptions>(
          "dropout1d",
          [](const Tensor& x, const F::Dropout1dFuncOptions& o) { return F::dropout1d(x, o); }),
      dropout_entry<F::Dropout2dFuncOptions>(
          "dropout2d",
          [](const Tensor& x, const F::Dropout2dFuncOptions& o) { return F::dropout2d(x, o); }),
      dropout_entry<F::Dropout3dFuncOptions>(
          "dropout3d",
          [](const Tensor& x, const F::Dropout3dFuncOptions& o) { return F::dropout3d(x, o); }),
      dropout_entry<F::AlphaDropoutFuncOptions>(
          "alpha_dropout",
          [](const Tensor& x, const F::AlphaDropoutFuncOptions& o) {
            return F::alpha_dropout(x, o);
          }),
      dropout_entry<F::FeatureAlphaDropoutFuncOptions>(
          "feature_alpha_dropout",
          [](const Tensor& x, const F::FeatureAlphaDropoutFuncOptions& o) {
            return F::feature_alpha_dropout(x, o);
          }),
      nn_op("embedding", kFamily, {1},
            [](const Args& a, const GoldenCase& c) {
              F::EmbeddingFuncOptions o;
              if (c.has_flag("padding")) o.padding_idx(c.ints.at(0));
              if (c.has_flag("max_norm")) o.max_norm(c.scalars.at(0)).norm_type(c.scalars.at(1));
              o.scale_grad_by_freq(c.has_flag("scale_grad_by_freq"));
              return F::embedding(a[0], a[1], o);
            }),
      nn_op("embedding_bag", kFamily, {1, 2},
            [](const Args& a, const GoldenCase& c) {
              F::EmbeddingBagFuncOptions o;
              o.mode(bag_mode(c.strs.at(0)));
              if (c.has_flag("offsets")) o.offsets(a[3]);
              if (c.has_flag("psw")) o.per_sample_weights(a[2]);
              if (c.has_flag("padding")) o.padding_idx(c.ints.at(0));
              if (c.has_flag("max_norm")) o.max_norm(c.scalars.at(0)).norm_type(c.scalars.at(1));
              o.scale_grad_by_freq(c.has_flag("scale_grad_by_freq"));
              o.include_last_offset(c.has_flag("include_last_offset"));
              return F::embedding_bag(a[0], a[1], o);
            }),
      nn_op("layer_norm", kFamily, {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return F::layer_norm(a[0], F::LayerNormFuncOptions(c.int_lists.at(0))
                                             .weight(unless(c, "no_weight", a[1]))
                                             .bias(unless(c, "no_bias", a[2]))
                                             .eps(c.scalars.at(0)));
            }),
      nn_op("rms_norm", kFamily, {0, 1},
            [](const Args& a, const GoldenCase& c) {
              F::RMSNormFuncOptions o(c.int_lists.at(0));
              o.weight(unless(c, "no_weight", a[1]));
              if (!c.scalars.empty()) o.eps(c.scalars[0]);
              return F::rms_norm(a[0], o);
            }),
      nn_op("cosine_similarity", kFamily, {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::cosine_similarity(
                  a[0], a[1],
                  F::CosineSimilarityFuncOptions().dim(c.ints.at(0)).eps(c.scalars.at(0)));
            }),
      nn_op("pairwise_distance", kFamily, {0, 1},
            [](const Args& a, const GoldenCase& c) {
              return F::pairwise_distance(a[0], a[1],
                                          F::PairwiseDistanceFuncOptions()
                                              .p(c.scalars.at(0))
                                              .eps(c.scalars.at(1))
                                              .keepdim(c.has_flag("keepdim")));
            }),
  };
}
