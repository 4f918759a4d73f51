// nn::utils fusion: a batch norm folded into the conv / linear layer before it gives the unfused
// eval model's output (1e-5 relative to the output's scale), leaves the inputs untouched, and
// refuses training mode and batch norms without running statistics.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/nn/utils/fusion.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;

// A named namespace: the test sources are compiled as unity files.
namespace fusion_test {

// Running statistics and affine parameters away from their defaults.
template <class Bn>
void randomize(Bn& bn) {
  NoGradGuard ng;
  bn->running_mean.copy_(ember::randn(bn->running_mean.sizes()));
  bn->running_var.copy_(ember::rand(bn->running_var.sizes()) + 0.5);
  if (bn->weight.defined()) bn->weight.copy_(ember::randn(bn->weight.sizes()));
  if (bn->bias.defined()) bn->bias.copy_(ember::randn(bn->bias.sizes()));
}

void expect_same(const Tensor& fused, const Tensor& ref) {
  const double scale = ref.abs().max().item<double>();
  EXPECT_TRUE(ember::allclose(fused, ref, 1e-5, 1e-5 * scale))
      << "max |diff| " << (fused - ref).abs().max().item<double>() << " at scale " << scale;
}

TEST(Fusion, ConvBnEval) {
  manual_seed(0);
  for (bool bias : {true, false}) {
    nn::Conv2d conv(nn::Conv2dOptions(3, 8, 3).padding(1).bias(bias));
    nn::BatchNorm2d bn(8);
    randomize(bn);
    conv->eval();
    bn->eval();
    Tensor w_before = conv->weight.detach().clone();
    nn::Conv2d fused = nn::utils::fuse_conv_bn_eval(conv, bn);
    Tensor x = ember::randn({2, 3, 6, 6});
    NoGradGuard ng;
    expect_same(fused(x), bn(conv(x)));
    EXPECT_TRUE(ember::equal(conv->weight, w_before));  // the input module is unchanged
    EXPECT_EQ(fused->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
    EXPECT_EQ(conv->bias.defined(), bias);
  }
}

TEST(Fusion, Conv1d3dAndTransposed) {
  manual_seed(1);
  {
    nn::Conv1d conv(4, 6, 3);
    nn::BatchNorm1d bn(6);
    randomize(bn);
    conv->eval();
    bn->eval();
    Tensor x = ember::randn({2, 4, 9});
    NoGradGuard ng;
    expect_same(nn::utils::fuse_conv_bn_eval(conv, bn)(x), bn(conv(x)));
  }
  {
    nn::Conv3d conv(2, 3, 2);
    nn::BatchNorm3d bn(3);
    randomize(bn);
    conv->eval();
    bn->eval();
    Tensor x = ember::randn({1, 2, 4, 4, 4});
    NoGradGuard ng;
    expect_same(nn::utils::fuse_conv_bn_eval(conv, bn)(x), bn(conv(x)));
  }
  {
    nn::ConvTranspose2d conv(nn::ConvTranspose2dOptions(4, 6, 3).stride(2));
    nn::BatchNorm2d bn(6);
    randomize(bn);
    conv->eval();
    bn->eval();
    Tensor x = ember::randn({2, 4, 5, 5});
    NoGradGuard ng;
    expect_same(nn::utils::fuse_conv_bn_eval(conv, bn, /*transpose=*/true)(x), bn(conv(x)));
  }
}

TEST(Fusion, LinearBnEvalAndWeights) {
  manual_seed(2);
  nn::Linear lin(5, 7);
  nn::BatchNorm1d bn(7);
  randomize(bn);
  lin->eval();
  bn->eval();
  Tensor x = ember::randn({4, 5});
  {
    NoGradGuard ng;
    expect_same(nn::utils::fuse_linear_bn_eval(lin, bn)(x), bn(lin(x)));
  }
  // The weights form, by the formula.
  auto [w, b] = nn::utils::fuse_linear_bn_weights(lin->weight, lin->bias, bn->running_mean,
                                                  bn->running_var, 1e-5, bn->weight, bn->bias);
  Tensor scale = bn->weight / (bn->running_var + 1e-5).sqrt();
  EXPECT_TRUE(ember::allclose(w, lin->weight * scale.unsqueeze(1), 1e-6, 1e-7));
  EXPECT_TRUE(ember::allclose(b, (lin->bias - bn->running_mean) * scale + bn->bias, 1e-6, 1e-7));
}

TEST(Fusion, Errors) {
  nn::Conv2d conv(3, 8, 3);
  nn::BatchNorm2d bn(8);
  expect_error<ValueError>([&] { nn::utils::fuse_conv_bn_eval(conv, bn); },
                           {"fuse_conv_bn_eval", "eval"});
  nn::BatchNorm2d no_stats(nn::BatchNormOptions(8).track_running_stats(false));
  conv->eval();
  no_stats->eval();
  expect_error<ValueError>([&] { nn::utils::fuse_conv_bn_eval(conv, no_stats); },
                           {"running statistics"});
  nn::BatchNorm2d wrong(5);
  wrong->eval();
  expect_error<ValueError>([&] { nn::utils::fuse_conv_bn_eval(conv, wrong); },
                           {"8 output channels", "5 features"});
}

}  // namespace fusion_test
