// BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, GroupNorm, LocalResponseNorm and CrossMapLRN2d modules:
// parameters and buffers (state_dict keys and shapes as Python's), the running statistics in
// train and eval mode (momentum and the cumulative average), printing, and errors that name the
// module. Numbers against PyTorch are in the op table (tests/nn/nn_ops_batchnorm.cpp).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;
using ember_test::printed;

namespace {

using KeyShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

KeyShapes key_shapes(const nn::Module& m) {
  KeyShapes out;
  for (const auto& item : m.state_dict())
    out.emplace_back(
        item.key(), std::vector<int64_t>(item.value().sizes().begin(), item.value().sizes().end()));
  return out;
}

// The statistics of x [N, C, *] per channel, in double: mean and unbiased variance.
std::pair<Tensor, Tensor> channel_stats(const Tensor& x) {
  const Tensor x3 =
      x.to(kDouble).reshape({x.size(0), x.size(1), -1}).transpose(0, 1).reshape({x.size(1), -1});
  return {x3.mean({1}), x3.var({1}, /*unbiased=*/true)};
}

TEST(BatchNormModule, StateDictKeysAndShapesMatchPython) {
  // Python: nn.Sequential(nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(48, 6),
  //                       nn.BatchNorm1d(6, affine=False), nn.Linear(6, 3)).state_dict()
  nn::Sequential net(nn::BatchNorm2d(3), nn::ReLU(), nn::Flatten(), nn::Linear(48, 6),
                     nn::BatchNorm1d(nn::BatchNorm1dOptions(6).affine(false)), nn::Linear(6, 3));
  const KeyShapes expected = {{"0.weight", {3}},
                              {"0.bias", {3}},
                              {"0.running_mean", {3}},
                              {"0.running_var", {3}},
                              {"0.num_batches_tracked", {}},
                              {"3.weight", {6, 48}},
                              {"3.bias", {6}},
                              {"4.running_mean", {6}},
                              {"4.running_var", {6}},
                              {"4.num_batches_tracked", {}},
                              {"5.weight", {3, 6}},
                              {"5.bias", {3}}};
  EXPECT_EQ(key_shapes(*net), expected);
  auto sd = net->state_dict();
  EXPECT_EQ(sd["0.num_batches_tracked"].dtype(), kLong);
  EXPECT_EQ(sd["0.running_mean"].dtype(), kFloat);
  EXPECT_TRUE(equal(sd["0.running_var"], ones({3})));
  EXPECT_EQ(net->parameters().size(), 6u);  // 2 + 2 + 2 (the BatchNorm1d has no affine)
  // The forward runs and counts one batch in each BatchNorm.
  Tensor y = net->forward(randn({5, 3, 4, 4}));
  EXPECT_EQ(y.sizes(), IntArrayRef({5, 3}));
  EXPECT_EQ(net->state_dict()["0.num_batches_tracked"].item<int64_t>(), 1);
  EXPECT_EQ(net->state_dict()["4.num_batches_tracked"].item<int64_t>(), 1);
}

TEST(BatchNormModule, WithoutRunningStatsHasOnlyParameters) {
  // Python: nn.BatchNorm2d(4, track_running_stats=False).state_dict() -> weight, bias
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(4).track_running_stats(false));
  EXPECT_EQ(key_shapes(*bn), (KeyShapes{{"weight", {4}}, {"bias", {4}}}));
  EXPECT_FALSE(bn->running_mean.defined());
  // Eval mode still normalises with the batch's statistics.
  bn->eval();
  Tensor x = randn({3, 4, 2, 2}) * 3 + 1;
  expect_same(bn(x), F::batch_norm(x, Tensor(), Tensor(), F::BatchNormFuncOptions().training(true)),
              "no running stats, eval");
}

TEST(BatchNormModule, TrainUpdatesRunningStatsEvalUsesThem) {
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(3).momentum(0.25));
  Tensor x = randn({4, 3, 5, 2}) * 2 + 3;
  Tensor y = bn(x);
  auto [mean, var] = channel_stats(x);
  EXPECT_TRUE(allclose(bn->running_mean, (mean * 0.25).to(kFloat), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(bn->running_var, (var * 0.25 + 0.75).to(kFloat), 1e-5, 1e-6));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  // Training output: zero mean and unit (biased) variance per channel.
  auto [ym, yv] = channel_stats(y);
  EXPECT_LT(ym.abs().max().item<double>(), 1e-5);
  bn->eval();
  const Tensor rm = bn->running_mean.clone(), rv = bn->running_var.clone();
  Tensor z = bn(x);
  EXPECT_TRUE(equal(bn->running_mean, rm));  // eval leaves the statistics alone
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  const Tensor expected = (x - rm.view({1, 3, 1, 1})) / (rv.view({1, 3, 1, 1}) + 1e-5).sqrt();
  EXPECT_TRUE(allclose(z, expected, 1e-5, 1e-5));
  bn->train();
  bn(x);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
}

TEST(BatchNormModule, UnsetMomentumIsTheCumulativeAverage) {
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(2).momentum(std::nullopt));
  std::vector<Tensor> means, vars;
  for (int i = 0; i < 3; ++i) {
    Tensor x = randn({6, 2}) * (i + 1) + i;
    bn(x);
    auto [m, v] = channel_stats(x);
    means.push_back(m);
    vars.push_back(v);
  }
  // Each batch weighs 1/3: (0·(1-1) + m1)·… reduces to the plain average of the batch statistics;
  // the variance starts from running_var = 1 but the first factor 1/1 replaces it.
  const Tensor m = (means[0] + means[1] + means[2]) / 3, v = (vars[0] + vars[1] + vars[2]) / 3;
  EXPECT_TRUE(allclose(bn->running_mean, m.to(kFloat), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(bn->running_var, v.to(kFloat), 1e-5, 1e-6));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 3);
}

TEST(BatchNormModule, ResetAndPrint) {
  nn::BatchNorm2d bn(16);
  EXPECT_EQ(printed(*bn),
            "ember::nn::BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)");
  nn::BatchNorm1d bn1(nn::BatchNorm1dOptions(4).momentum(std::nullopt).affine(false));
  EXPECT_EQ(printed(*bn1),
            "ember::nn::BatchNorm1d(4, eps=1e-05, momentum=None, affine=false, "
            "track_running_stats=true)");
  nn::BatchNorm3d bn3(2);
  EXPECT_EQ(printed(*bn3),
            "ember::nn::BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)");
  bn(randn({2, 16, 3, 3}) + 5);
  {
    NoGradGuard g;
    bn->weight.fill_(3);
  }
  bn->reset_parameters();
  EXPECT_TRUE(equal(bn->weight, ones({16})));
  EXPECT_TRUE(equal(bn->running_mean, zeros({16})));
  EXPECT_TRUE(equal(bn->running_var, ones({16})));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 0);
}

TEST(BatchNormModule, CloneCopiesBuffers) {
  nn::BatchNorm2d bn(3);
  bn(randn({4, 3, 2, 2}) + 2);
  auto copy = std::dynamic_pointer_cast<nn::BatchNorm2dImpl>(bn->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(equal(copy->running_mean, bn->running_mean));
  EXPECT_EQ(copy->num_batches_tracked.item<int64_t>(), 1);
  copy->running_mean.add_(1);
  EXPECT_FALSE(equal(copy->running_mean, bn->running_mean));
}

TEST(BatchNormModule, ErrorsNameTheModuleAndShapes) {
  nn::BatchNorm2d bn(16);
  expect_error<ValueError>(
      [&] {
        bn(randn({4, 16, 5}));
      },
      {"BatchNorm2d: expected 4D input (got 3D input)"});
  expect_error(
      [&] {
        bn(randn({4, 8, 5, 5}));
      },
      {"BatchNorm2d: batch_norm: expected input with 16 channels, got 8 (input [4, 8, "
       "5, 5])"});
  nn::BatchNorm1d bn1(16);
  expect_error<ValueError>(
      [&] {
        bn1(randn({1, 16}));
      },
      {"BatchNorm1d: batch_norm: Expected more than 1 value per channel "
       "when training, got input size [1, 16]"});
  expect_error<ValueError>(
      [&] {
        bn1(randn({2, 16, 3, 3}));
      },
      {"BatchNorm1d: expected 2D or 3D input (got 4D input)"});
  bn1->eval();
  EXPECT_EQ(bn1(randn({1, 16})).sizes(), IntArrayRef({1, 16}));  // fine in eval mode
  nn::BatchNorm3d bn3(2);
  expect_error<ValueError>(
      [&] {
        bn3(randn({2, 2, 3, 3}));
      },
      {"BatchNorm3d: expected 5D input (got 4D input)"});
  // The functional form's own errors.
  expect_error<ValueError>([&] { F::batch_norm(randn({5}), Tensor(), Tensor()); },
                           {"batch_norm: expected input with at least 2 dims [N, C, *], got "
                            "input [5]"});
  expect_error<ValueError>(
      [&] {
        F::batch_norm(randn({3, 2}), Tensor(), Tensor());
      },
      {"batch_norm: running_mean and running_var must be defined in "
       "evaluation mode"});
  expect_error<TypeError>(
      [&] {
        F::batch_norm(ones({3, 2}, kLong), Tensor(), Tensor(),
                      F::BatchNormFuncOptions().training(true));
      },
      {"batch_norm: input must have a floating dtype", "int64"});
}

TEST(InstanceNormModule, DefaultsAndStateDict) {
  nn::InstanceNorm2d in(3);
  EXPECT_TRUE(in->state_dict().is_empty());  // Python: no affine, no running stats
  EXPECT_EQ(printed(*in),
            "ember::nn::InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=false, "
            "track_running_stats=false)");
  nn::InstanceNorm1d in1(nn::InstanceNorm1dOptions(4).affine(true).track_running_stats(true));
  EXPECT_EQ(key_shapes(*in1), (KeyShapes{{"weight", {4}},
                                         {"bias", {4}},
                                         {"running_mean", {4}},
                                         {"running_var", {4}},
                                         {"num_batches_tracked", {}}}));
}

TEST(InstanceNormModule, NormalisesEachInstanceAndTracksStats) {
  nn::InstanceNorm1d in(nn::InstanceNorm1dOptions(3).track_running_stats(true).momentum(0.5));
  Tensor x = randn({2, 3, 7}) * 2 + 1;
  Tensor y = in(x);
  const Tensor mean = x.to(kDouble).mean({2}, true);
  const Tensor var = x.to(kDouble).var({2}, /*unbiased=*/false, /*keepdim=*/true);
  EXPECT_TRUE(allclose(y, ((x.to(kDouble) - mean) / (var + 1e-5).sqrt()).to(kFloat), 1e-5, 1e-5));
  const Tensor uvar = x.to(kDouble).var({2}, /*unbiased=*/true);
  EXPECT_TRUE(allclose(in->running_mean, (mean.squeeze(2).mean({0}) * 0.5).to(kFloat), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(in->running_var, (uvar.mean({0}) * 0.5 + 0.5).to(kFloat), 1e-5, 1e-6));
  // Eval: the running statistics.
  in->eval();
  const Tensor z = in(x);
  const Tensor rm = in->running_mean.view({1, 3, 1}), rv = in->running_var.view({1, 3, 1});
  EXPECT_TRUE(allclose(z, (x - rm) / (rv + 1e-5).sqrt(), 1e-5, 1e-5));
}

TEST(InstanceNormModule, UnbatchedInput) {
  nn::InstanceNorm2d in(nn::InstanceNorm2dOptions(3).affine(true));
  Tensor x = randn({3, 4, 5});
  Tensor y = in(x);
  EXPECT_EQ(y.sizes(), IntArrayRef({3, 4, 5}));
  expect_same(y, in(x.unsqueeze(0)).squeeze(0), "unbatched");
}

TEST(InstanceNormModule, Errors) {
  nn::InstanceNorm2d in(nn::InstanceNorm2dOptions(3).affine(true));
  expect_error<ValueError>(
      [&] {
        in(randn({2, 3, 4}));
      },
      {"InstanceNorm2d: expected input's size at dim=0 to match "
       "num_features (3), but got: 2 (input [2, 3, 4])"});
  expect_error<ValueError>(
      [&] {
        in(randn({2, 3}));
      },
      {"InstanceNorm2d: expected 3D or 4D input (got 2D input)"});
  expect_error<ValueError>(
      [&] {
        F::instance_norm(randn({2, 3, 1}));
      },
      {"instance_norm: Expected more than 1 spatial element when training, got input size "
       "[2, 3, 1]"});
  expect_error(
      [&] {
        in(randn({2, 4, 3, 3}));
      },
      {"InstanceNorm2d: expected input's size at dim=1 to match num_features (3), but "
       "got: 4"});
}

TEST(GroupNormModule, ParametersPrintAndForward) {
  nn::GroupNorm gn(2, 4);
  EXPECT_EQ(key_shapes(*gn), (KeyShapes{{"weight", {4}}, {"bias", {4}}}));
  EXPECT_EQ(printed(*gn), "ember::nn::GroupNorm(2, 4, eps=1e-05, affine=true)");
  Tensor x = randn({3, 4, 5}) * 3 - 1;
  Tensor y = gn(x);
  const Tensor xg = x.to(kDouble).reshape({3, 2, 10});
  const Tensor ref = ((xg - xg.mean({2}, true)) /
                      (xg.var({2}, /*unbiased=*/false, /*keepdim=*/true) + 1e-5).sqrt())
                         .reshape({3, 4, 5});
  EXPECT_TRUE(allclose(y, ref.to(kFloat), 1e-5, 1e-5));
  nn::GroupNorm plain(nn::GroupNormOptions(2, 4).affine(false));
  EXPECT_TRUE(plain->state_dict().is_empty());
}

TEST(GroupNormModule, Errors) {
  expect_error<ValueError>([] { nn::GroupNorm(3, 4); },
                           {"GroupNorm: num_channels must be divisible by num_groups, got "
                            "num_groups=3 and num_channels=4"});
  nn::GroupNorm gn(2, 4);
  expect_error(
      [&] {
        gn(randn({2, 6, 3}));
      },
      {"GroupNorm: group_norm: expected input with 4 channels, got 6 (input [2, 6, 3])"});
  expect_error<ValueError>(
      [] {
        F::group_norm(randn({2, 6, 3}), F::GroupNormFuncOptions(4));
      },
      {"group_norm: expected the number of channels in input to be divisible by num_groups, "
       "but got input of shape [2, 6, 3] and num_groups=4"});
  expect_error<ValueError>([] { F::group_norm(randn({6}), F::GroupNormFuncOptions(2)); },
                           {"group_norm: expected input with at least 2 dims"});
}

TEST(LocalResponseNormModule, ForwardAndPrint) {
  nn::LocalResponseNorm lrn(nn::LocalResponseNormOptions(3).alpha(0.5));
  EXPECT_EQ(printed(*lrn), "ember::nn::LocalResponseNorm(3, alpha=0.5, beta=0.75, k=1)");
  Tensor x = randn({2, 4, 3});
  expect_same(lrn(x), F::local_response_norm(x, F::LocalResponseNormFuncOptions(3).alpha(0.5)),
              "LocalResponseNorm");
  expect_error<ValueError>(
      [&] {
        lrn(randn({2, 4}));
      },
      {"LocalResponseNorm: local_response_norm: Expected 3D or higher "
       "dimensionality input (got 2 dimensions)"});
}

TEST(CrossMapLRN2dModule, PrintGradcheckAndErrors) {
  nn::CrossMapLRN2d lrn(nn::CrossMapLRN2dOptions(3).alpha(0.7).k(2));
  EXPECT_EQ(printed(*lrn), "ember::nn::CrossMapLRN2d(3, alpha=0.7, beta=0.75, k=2)");
  // Ember differentiates its forward exactly (PyTorch's hand-written backward does not).
  Tensor x = randn({1, 6, 2, 2}, kDouble).requires_grad_(true);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& v) { return autograd::variable_list{lrn(v[0])}; }, {x}));
  expect_error<ValueError>(
      [&] {
        lrn(randn({6, 2, 2}));
      },
      {"CrossMapLRN2d: Expected input to be 4D, got 3D instead"});
}

}  // namespace
