// Behaviour and errors of the layer functionals (src/nn/functional/{linear,embedding,
// normalization,distance}.cpp) beyond the golden table: how linear records itself, embedding's
// max_norm renormalisation and gradients with repeated and padding indices, embedding_bag
// against a composition of embedding lookups, the statistics of layer_norm and rms_norm, and
// each error's message.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "ember/ember.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/normalization.h"
#include "tests/support/expect_error.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

using ember_test::expect_error;

Tensor ids(std::vector<int64_t> v) { return tensor(v, kLong); }

// ---- linear, bilinear ----

TEST(Linear, TwoDInputIsOneAddmmWithTheBiasFused) {
  Tensor x = randn({4, 5}), w = randn({3, 5}).requires_grad_(), b = randn({3}).requires_grad_();
  Tensor y = F::linear(x, w, b);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "AddmmBackward0");
  EXPECT_TRUE(allclose(y, x.matmul(w.detach().t()) + b.detach(), 1e-5, 1e-6));
}

TEST(Linear, StridedAndBatchedInputsMatchTheContiguousResult) {
  Tensor w = randn({3, 5}), b = randn({3});
  Tensor x = randn({2, 5, 4}).transpose(1, 2);  // [2, 4, 5], not contiguous
  Tensor ref = F::linear(x.contiguous(), w, b);
  EXPECT_TRUE(allclose(F::linear(x, w, b), ref, 1e-5, 1e-6));
  EXPECT_EQ(ref.sizes(), IntArrayRef({2, 4, 3}));
  EXPECT_TRUE(allclose(F::linear(x.select(0, 1).select(0, 2), w, b), ref[1][2], 1e-5, 1e-6));
}

TEST(Linear, ShapeAndDtypeErrorsNameTheOpAndTheExpectedShape) {
  expect_error<Error>(
      [] {
        F::linear(ones({2, 5}), ones({4, 3}));
      },
      {"linear: input [2, 5] float32 has 5 features but weight [4, 3] float32 "
       "expects 3",
       "expected input of shape [*, 3]"});
  expect_error<Error>(
      [] {
        F::linear(ones({2, 5}), ones({5}));
      },
      {"linear: weight must be 2-D [out_features, in_features], but got [5]"});
  expect_error<Error>(
      [] {
        F::linear(ones({2, 3}), ones({4, 3}), ones({3}));
      },
      {"linear: bias [3] float32 does not match weight [4, 3] float32",
       "expected bias of shape [4]"});
  expect_error<TypeError>(
      [] {
        F::linear(ones({2, 3}, kDouble), ones({4, 3}));
      },
      {"linear: input [2, 3] float64 and weight [4, 3] float32 have "
       "different dtypes"});
  expect_error<Error>(
      [] {
        F::linear(Tensor(), ones({4, 3}));
      },
      {"linear: input is an undefined tensor"});
}

TEST(Bilinear, ShapeErrorsNameTheExpectedShapes) {
  expect_error<Error>(
      [] {
        F::bilinear(ones({2, 3}), ones({2, 4}), ones({5, 3, 2}));
      },
      {"bilinear: input2 [2, 4] float32 has 4 features but weight [5, 3, 2] "
       "float32 expects 2"});
  expect_error<Error>(
      [] {
        F::bilinear(ones({2, 3}), ones({3, 2}), ones({5, 3, 2}));
      },
      {"bilinear: input1 [2, 3] float32 and input2 [3, 2] float32 differ in "
       "batch dim 0"});
  expect_error<Error>(
      [] {
        F::bilinear(ones({2, 3}), ones({2, 2}), ones({5, 6}));
      },
      {"bilinear: weight must be 3-D"});
}

// ---- embedding ----

TEST(Embedding, RepeatedIndicesAddTheirGradientsAndPaddingGetsNone) {
  Tensor w = randn({5, 3}).requires_grad_();
  Tensor x = ids({1, 3, 1, 1, 4, 3});
  Tensor y = F::embedding(x, w, F::EmbeddingFuncOptions().padding_idx(3));
  // The padding row is still looked up; only its gradient is dropped.
  EXPECT_TRUE(y[1].equal(w.detach()[3]));
  y.sum().backward();
  Tensor expected = tensor({0.0, 3.0, 0.0, 0.0, 1.0}).view({5, 1}).expand({5, 3});
  EXPECT_TRUE(w.grad().equal(expected));
}

TEST(Embedding, ScaleGradByFreqDividesByTheIndexCount) {
  Tensor w = randn({4, 2}).requires_grad_();
  Tensor y = F::embedding(ids({2, 2, 0, 2}), w, F::EmbeddingFuncOptions().scale_grad_by_freq(true));
  y.backward(ones({4, 2}));
  EXPECT_TRUE(w.grad().equal(tensor({1.0, 0.0, 1.0, 0.0}).view({4, 1}).expand({4, 2})));
}

TEST(Embedding, MaxNormRenormalisesTheLookedUpRowsInPlace) {
  manual_seed(42);
  Tensor w = randn({6, 4});
  w = w / w.norm(2, {1}, true) * (arange(6, kFloat) + 2).unsqueeze(1);  // norms 2..7
  Tensor before = w.clone();
  const auto version = w._version();
  Tensor y = F::embedding(ids({0, 2, 2, 5}), w, F::EmbeddingFuncOptions().max_norm(1.0));
  EXPECT_GT(w._version(), version);
  Tensor norms = w.norm(2, {1});
  for (int64_t r : {0, 2, 5}) {
    EXPECT_NEAR(norms[r].item<double>(), 1.0, 1e-5) << "row " << r;
    // Rescaled, not changed in direction.
    EXPECT_TRUE(allclose(w[r] * before[r].norm(), before[r], 1e-4, 1e-5));
  }
  for (int64_t r : {1, 3, 4}) EXPECT_TRUE(w[r].equal(before[r])) << "row " << r;
  EXPECT_TRUE(y[1].equal(w[2]));
  // Rows already within max_norm stay as they are; norm_type picks the p-norm.
  Tensor small = tensor({{0.1, 0.2}, {3.0, -4.0}});
  F::embedding(ids({0, 1}), small, F::EmbeddingFuncOptions().max_norm(2.0).norm_type(1.0));
  EXPECT_TRUE(small[0].equal(tensor({0.1, 0.2})));
  EXPECT_NEAR(small[1].abs().sum().item<double>(), 2.0, 1e-5);
}

TEST(Embedding, MaxNormDoesNotRecordAndTheGradientStillFlows) {
  Tensor w = (randn({4, 3}) * 5).requires_grad_();
  Tensor y = F::embedding(ids({1, 1, 3}), w, F::EmbeddingFuncOptions().max_norm(0.5));
  EXPECT_TRUE(w.is_leaf());
  y.sum().backward();
  EXPECT_TRUE(w.grad().equal(tensor({0.0, 2.0, 0.0, 1.0}).view({4, 1}).expand({4, 3})));
}

TEST(Embedding, Int32IndicesAndAnyInputRank) {
  Tensor w = randn({7, 2});
  Tensor x = tensor({{{1, 6}, {0, 3}}}, kInt);
  Tensor y = F::embedding(x, w);
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 2, 2, 2}));
  EXPECT_TRUE(y[0][1][1].equal(w[3]));
  EXPECT_EQ(F::embedding(zeros({0, 4}, kLong), w).sizes(), IntArrayRef({0, 4, 2}));
}

TEST(Embedding, Errors) {
  Tensor w = ones({6, 3});
  expect_error<Error>([&] { F::embedding(ids({1}), w, F::EmbeddingFuncOptions().sparse(true)); },
                      {"embedding: sparse=true is not supported"});
  expect_error<IndexError>(
      [&] {
        F::embedding(ids({1, 6}), w);
      },
      {"embedding: index 6 at position 1 is out of range for weight [6, 3] "
       "float32",
       "[0, 6)"});
  expect_error<IndexError>([&] { F::embedding(ids({-1}), w); }, {"embedding: index -1"});
  expect_error<TypeError>([&] { F::embedding(ones({2}), w); },
                          {"embedding: input must hold int64 or int32 indices, but got [2] "
                           "float32"});
  expect_error<ValueError>(
      [&] { F::embedding(ids({1}), w, F::EmbeddingFuncOptions().padding_idx(6)); },
      {"embedding: padding_idx 6 is out of range for weight [6, 3] float32"});
  expect_error<Error>([] { F::embedding(ids({1}), ones({6})); },
                      {"embedding: weight must be a 2-D [num_embeddings, embedding_dim] table, "
                       "but got [6] float32"});
}

// ---- embedding_bag ----

// Bags as sums/means of F::embedding rows, computed one bag at a time.
Tensor bags_by_hand(const Tensor& input, const Tensor& w, std::vector<int64_t> offsets, bool mean) {
  std::vector<Tensor> out;
  for (size_t b = 0; b < offsets.size(); ++b) {
    const int64_t end = b + 1 < offsets.size() ? offsets[b + 1] : input.numel();
    Tensor rows = F::embedding(input.slice(0, offsets[b], end), w);
    out.push_back(end == offsets[b] ? zeros({w.size(1)}) : mean ? rows.mean({0}) : rows.sum({0}));
  }
  return stack(out);
}

TEST(EmbeddingBag, MatchesLookupsReducedBagByBag) {
  manual_seed(41);
  Tensor w = randn({20, 5});
  Tensor x = randint(0, 20, {30});
  std::vector<int64_t> offs = {0, 4, 4, 11, 29};
  Tensor o = tensor(offs, kLong);
  for (bool mean : {false, true}) {
    auto mode = mean ? nn::EmbeddingBagMode(kMean) : nn::EmbeddingBagMode(kSum);
    Tensor y = F::embedding_bag(x, w, F::EmbeddingBagFuncOptions().offsets(o).mode(mode));
    EXPECT_TRUE(allclose(y, bags_by_hand(x, w, offs, mean), 1e-5, 1e-6)) << "mean=" << mean;
  }
}

TEST(EmbeddingBag, MaxModeGradientGoesToTheWinningRow) {
  Tensor w = tensor({{1.0, 5.0}, {3.0, 2.0}, {2.0, 9.0}}).requires_grad_();
  Tensor y = F::embedding_bag(ids({0, 1, 1, 2}), w,
                              F::EmbeddingBagFuncOptions().offsets(ids({0, 2})).mode(kMax));
  EXPECT_TRUE(y.equal(tensor({{3.0, 5.0}, {3.0, 9.0}})));
  y.backward(tensor({{1.0, 10.0}, {100.0, 1000.0}}));
  EXPECT_TRUE(w.grad().equal(tensor({{0.0, 10.0}, {101.0, 0.0}, {0.0, 1000.0}})));
}

TEST(EmbeddingBag, MaxModeEmptyBagsAreZeroAndSendNoGradient) {
  Tensor w = tensor({{1.0, -5.0}, {-3.0, 2.0}, {2.0, -9.0}}, kDouble).requires_grad_();
  // Bags: [0, 1], empty, [2, 2 (padding), 1]; the padding entry takes no part.
  auto opts = F::EmbeddingBagFuncOptions().offsets(ids({0, 2, 2})).mode(kMax).padding_idx(0);
  Tensor x = ids({0, 1, 2, 0, 1});
  Tensor y = F::embedding_bag(x, w, opts);
  EXPECT_TRUE(y.equal(tensor({{-3.0, 2.0}, {0.0, 0.0}, {2.0, 2.0}}, kDouble)));
  Tensor g = tensor({{1.0, 10.0}, {100.0, 1000.0}, {1e4, 1e5}}, kDouble);
  auto plain = autograd::grad({y}, {w}, {g});
  EXPECT_TRUE(plain[0].equal(tensor({{0.0, 0.0}, {1.0, 1e5 + 10.0}, {1e4, 0.0}}, kDouble)));
  // The recorded backward (create_graph, a gradient that requires grad) gives the same gradient
  // and differentiates again.
  auto recorded =
      autograd::grad({F::embedding_bag(x, w, opts)}, {w}, {g.clone().requires_grad_()}, true, true);
  EXPECT_TRUE(recorded[0].requires_grad());
  EXPECT_TRUE(recorded[0].equal(plain[0]));
  auto f = [&](const autograd::variable_list& v) -> autograd::variable_list {
    return {F::embedding_bag(x, v[0], opts)};
  };
  EXPECT_NO_THROW(autograd::gradcheck(f, {w}));
  EXPECT_NO_THROW(autograd::gradgradcheck(f, {w}));
}

TEST(EmbeddingBag, PaddingEntriesLeaveTheBagAndItsCount) {
  Tensor w = tensor({{1.0}, {2.0}, {4.0}}).requires_grad_();
  Tensor y = F::embedding_bag(tensor({{0, 1, 1}, {1, 1, 1}}, kLong), w,
                              F::EmbeddingBagFuncOptions().mode(kMean).padding_idx(1));
  EXPECT_TRUE(y.equal(tensor({{1.0}, {0.0}})));  // an all-padding bag is zero
  y.sum().backward();
  EXPECT_TRUE(w.grad().equal(tensor({{1.0}, {0.0}, {0.0}})));
}

// With create_graph the backward runs through differentiable index ops instead of the row
// kernels: both must give the same gradients, and the recorded one must differentiate again.
TEST(EmbeddingBag, RecordedBackwardMatchesTheKernelAndDifferentiatesAgain) {
  manual_seed(43);
  Tensor w = randn({7, 3}, kDouble).requires_grad_();
  Tensor x = tensor(std::vector<int64_t>{1, 4, 4, 0, 6, 2, 4, 1}, kLong);
  Tensor psw = randn({8}, kDouble).requires_grad_();
  Tensor g = randn({3, 3}, kDouble);
  auto opts = F::EmbeddingBagFuncOptions()
                  .offsets(ids({0, 3, 3}))
                  .mode(kSum)
                  .per_sample_weights(psw)
                  .scale_grad_by_freq(true)
                  .padding_idx(6);
  auto plain = autograd::grad({F::embedding_bag(x, w, opts)}, {w, psw}, {g});
  auto recorded = autograd::grad({F::embedding_bag(x, w, opts)}, {w, psw}, {g}, true, true);
  EXPECT_TRUE(allclose(plain[0], recorded[0], 1e-12, 1e-12));
  EXPECT_TRUE(allclose(plain[1], recorded[1], 1e-12, 1e-12));
  Tensor ge = randn({4, 2, 3}, kDouble);
  auto eopts = F::EmbeddingFuncOptions().padding_idx(1).scale_grad_by_freq(true);
  Tensor xe = x.view({4, 2});
  auto ep = autograd::grad({F::embedding(xe, w, eopts)}, {w}, {ge});
  auto er = autograd::grad({F::embedding(xe, w, eopts)}, {w}, {ge}, true, true);
  EXPECT_TRUE(allclose(ep[0], er[0], 1e-12, 1e-12));
  // d(weight gradient)/d(per_sample_weights), numerically.
  auto first = [&](const autograd::variable_list& v) {
    auto o = opts;
    o.per_sample_weights(v[0]);
    return autograd::grad({F::embedding_bag(x, v[1], o)}, {v[1]}, {g}, true, true);
  };
  EXPECT_NO_THROW(autograd::gradcheck(first, {psw, w}));
}

TEST(EmbeddingBag, Errors) {
  Tensor w = ones({5, 2});
  using O = F::EmbeddingBagFuncOptions;
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2}), w);
      },
      {"embedding_bag: a 1-D input [2] int64 needs offsets"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2}).view({1, 2}), w, O().offsets(ids({0})));
      },
      {"embedding_bag: offsets must be undefined for a 2-D input [1, 2] int64"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2}), w, O().offsets(ids({1})));
      },
      {"embedding_bag: offsets[0] has to be 0", "got 1"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2, 3}), w, O().offsets(ids({0, 2, 1})));
      },
      {"embedding_bag: offsets must be non-decreasing"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2}), w, O().offsets(ids({0, 3})));
      },
      {"embedding_bag: offsets[-1] = 3 is greater than the input's length 2"});
  expect_error<Error>(
      [&] {
        F::embedding_bag(ids({1, 2}), w, O().offsets(ids({0})).per_sample_weights(ones({2})));
      },
      {"embedding_bag: per_sample_weights is only supported for mode kSum, but got mode kMean"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2}), w,
                         O().offsets(ids({0})).mode(kSum).per_sample_weights(ones({3})));
      },
      {"embedding_bag: per_sample_weights [3] float32 must have the same shape as the input [2] "
       "int64"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2}), w, O().offsets(ids({0})).mode(kMax).scale_grad_by_freq(true));
      },
      {"embedding_bag: mode kMax does not support scale_grad_by_freq"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(ids({1, 2}).view({1, 1, 2}), w);
      },
      {"embedding_bag: input must be 1-D [n] (with offsets) or 2-D [B, L], "
       "but got [1, 1, 2] int64"});
  expect_error<Error>([&] { F::embedding_bag(ids({1}), w, O().offsets(ids({0})).sparse(true)); },
                      {"embedding_bag: sparse=true is not supported"});
}

// ---- layer_norm, rms_norm ----

TEST(LayerNorm, NormalisesToZeroMeanAndUnitVarianceOverTheTrailingDims) {
  manual_seed(51);
  Tensor x = randn({4, 3, 8}, kDouble) * 5 + 2;
  Tensor y = F::layer_norm(x, F::LayerNormFuncOptions({3, 8}).eps(0));
  EXPECT_TRUE(allclose(y.mean({1, 2}), zeros({4}, kDouble), 0, 1e-12));
  EXPECT_TRUE(allclose(y.var({1, 2}, /*unbiased=*/false), ones({4}, kDouble), 1e-10, 1e-10));
}

TEST(LayerNorm, DoubleBackwardMatchesNumericalDerivatives) {
  manual_seed(52);
  Tensor x = randn({2, 5}, kDouble).requires_grad_();
  Tensor w = randn({5}, kDouble).requires_grad_();
  Tensor cot = randn({2, 5}, kDouble);
  // The first derivative, recorded (create_graph): gradcheck differentiates it once more.
  auto first = [&](const autograd::variable_list& v) {
    Tensor y = F::layer_norm(v[0], F::LayerNormFuncOptions({5}).weight(v[1]));
    return autograd::grad({(y * cot).sum()}, {v[0]}, {}, true, true);
  };
  EXPECT_NO_THROW(autograd::gradcheck(first, {x, w}));
}

// The fused CPU kernels serve same-dtype calls; a weight of another dtype takes the composed
// path. Both must agree, forward and backward, for both norms.
TEST(LayerNorm, FusedKernelAndComposedPathAgree) {
  manual_seed(53);
  Tensor x = randn({6, 4, 10}), w = randn({4, 10}), b = randn({4, 10}), g = randn({6, 4, 10});
  for (bool rms : {false, true}) {
    auto run = [&](const Tensor& weight, const Tensor& bias) {
      Tensor xg = x.clone().requires_grad_(), wg = weight.clone().requires_grad_();
      Tensor y = rms ? F::rms_norm(xg, F::RMSNormFuncOptions({4, 10}).weight(wg).eps(1e-5))
                     : F::layer_norm(xg, F::LayerNormFuncOptions({4, 10}).weight(wg).bias(bias));
      auto grads = autograd::grad({y}, {xg, wg}, {g});
      return std::make_tuple(y, grads[0], grads[1]);
    };
    auto [y1, dx1, dw1] = run(w, b);                          // fused
    auto [y2, dx2, dw2] = run(w.to(kDouble), b.to(kDouble));  // composed
    EXPECT_EQ(y2.dtype(), kFloat);
    EXPECT_TRUE(allclose(y1, y2, 1e-5, 1e-5)) << "rms=" << rms;
    EXPECT_TRUE(allclose(dx1, dx2, 1e-4, 1e-5)) << "rms=" << rms;
    EXPECT_TRUE(allclose(dw1, dw2.to(kFloat), 1e-4, 1e-5)) << "rms=" << rms;
  }
}

TEST(LayerNorm, StridedAndSixteenBitInputs) {
  manual_seed(54);
  Tensor x = randn({12, 5}), w = randn({12}), b = randn({12});
  auto ln = [&](const Tensor& in, const Tensor& wt, const Tensor& bs) {
    return F::layer_norm(in, F::LayerNormFuncOptions({12}).weight(wt).bias(bs));
  };
  EXPECT_TRUE(allclose(ln(x.t(), w, b), ln(x.t().contiguous(), w, b), 1e-6, 1e-6));
  for (ScalarType t : {kHalf, kBFloat16}) {
    Tensor xl = x.t().to(t).requires_grad_();
    Tensor y = ln(xl, w.to(t), b.to(t));
    EXPECT_EQ(y.dtype(), t);
    y.sum().backward();
    // The reference: float32 on the same (rounded) inputs.
    Tensor xf = xl.detach().to(kFloat).requires_grad_();
    Tensor yf = ln(xf, w.to(t).to(kFloat), b.to(t).to(kFloat));
    yf.sum().backward();
    EXPECT_TRUE(allclose(y.to(kFloat), yf, 2e-2, 2e-2)) << t;
    EXPECT_TRUE(allclose(xl.grad().to(kFloat), xf.grad(), 2e-2, 2e-2)) << t;
  }
}

TEST(LayerNorm, Errors) {
  expect_error<Error>(
      [] {
        F::layer_norm(ones({2, 3}), F::LayerNormFuncOptions({4}));
      },
      {"layer_norm: input [2, 3] float32 does not end in normalized_shape [4]: "
       "expected input of shape [*, 4]"});
  expect_error<Error>(
      [] {
        F::layer_norm(ones({2, 3}), F::LayerNormFuncOptions({3}).weight(ones({2})));
      },
      {"layer_norm: weight [2] float32 does not match normalized_shape [3]"});
  expect_error<TypeError>(
      [] {
        F::layer_norm(ones({2, 3}, kLong), F::LayerNormFuncOptions({3}));
      },
      {"layer_norm: input must have a floating dtype"});
}

TEST(RmsNorm, DefaultEpsIsTheComputeDtypesEpsilon) {
  // x = 1e-4 everywhere: mean(x²) = 1e-8, comparable to float32's epsilon (1.19e-7).
  Tensor x = full({2, 4}, 1e-4);
  Tensor y = F::rms_norm(x, F::RMSNormFuncOptions({4}));
  const double expected = 1e-4 / std::sqrt(1e-8 + 1.1920928955078125e-07);
  EXPECT_NEAR(y[0][0].item<double>(), expected, 1e-6);
  Tensor y16 = F::rms_norm(x.to(kHalf), F::RMSNormFuncOptions({4}));  // float32's eps too
  EXPECT_NEAR(y16[0][0].item<double>(), expected, 2e-3);
  Tensor yd = F::rms_norm(x.to(kDouble), F::RMSNormFuncOptions({4}));
  EXPECT_NEAR(yd[0][0].item<double>(), 1.0, 1e-7);  // float64's eps is negligible here
  EXPECT_NEAR(F::rms_norm(x, F::RMSNormFuncOptions({4}).eps(1e-8))[0][0].item<double>(),
              1 / std::sqrt(2.0), 1e-6);
}

TEST(RmsNorm, Errors) {
  expect_error<Error>(
      [] {
        F::rms_norm(ones({2, 3}), F::RMSNormFuncOptions({2, 3, 1}));
      },
      {"rms_norm: input [2, 3] float32 does not end in normalized_shape [2, 3, "
       "1]"});
  expect_error<ValueError>(
      [] {
        F::rms_norm(ones({2, 3}), F::RMSNormFuncOptions({}));
      },
      {"rms_norm: normalized_shape must name at least one dim"});
}

// ---- cosine_similarity, pairwise_distance ----

TEST(Distance, CosineSimilarityOfParallelAndOrthogonalVectors) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {1.0, 0.0, 0.0}});
  Tensor b = tensor({{2.0, 4.0, 6.0}, {0.0, 5.0, 0.0}});
  EXPECT_TRUE(allclose(F::cosine_similarity(a, b), tensor({1.0, 0.0}), 1e-6, 1e-7));
  // A zero vector gives 0, not NaN (the norm is clamped to eps).
  EXPECT_EQ(F::cosine_similarity(zeros({1, 3}), b.slice(0, 0, 1)).item<double>(), 0.0);
}

TEST(Distance, Errors) {
  expect_error<IndexError>(
      [] {
        F::cosine_similarity(ones({2, 3}), ones({2, 3}), F::CosineSimilarityFuncOptions().dim(2));
      },
      {"cosine_similarity: dim 2 is out of range for inputs broadcast to [2, 3]"});
  expect_error<TypeError>(
      [] {
        F::cosine_similarity(ones({2, 3}, kLong), ones({2, 3}, kLong));
      },
      {"cosine_similarity: expected the common dtype of x1 [2, 3] int64 and x2 "
       "[2, 3] int64 to be floating point"});
  expect_error<Error>(
      [] {
        F::cosine_similarity(ones({2, 3}), ones({4, 3}));
      },
      {"cosine_similarity: x1 [2, 3] float32 and x2 [4, 3] float32 cannot be "
       "broadcast together"});
  expect_error<Error>(
      [] {
        F::pairwise_distance(ones({2, 3}), ones({2, 4}));
      },
      {"pairwise_distance: x1 [2, 3] float32 and x2 [2, 4] float32 cannot be "
       "broadcast together"});
}

TEST(Distance, PairwiseDistanceAddsEpsToTheDifference) {
  Tensor a = tensor({{0.0, 0.0}}), b = tensor({{3.0, 4.0}});
  EXPECT_NEAR(F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().eps(0)).item<double>(),
              5.0, 1e-6);
  // ‖a - a + eps‖₂ = eps·√2: the distance of equal points is not 0.
  EXPECT_NEAR(F::pairwise_distance(a, a).item<double>(), 1e-6 * std::sqrt(2.0), 1e-9);
  EXPECT_EQ(F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().keepdim(true)).sizes(),
            IntArrayRef({1, 1}));
}

}  // namespace
