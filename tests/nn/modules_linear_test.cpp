// Identity, Linear, Flatten, Unflatten, Bilinear modules: forward as the functional form,
// PyTorch's initialisation, printing, options.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ember/ember.h"
#include "ember/nn.h"
#include "ember/nn/functional/linear.h"
#include "ember/optim.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

std::string printed(const nn::Module& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

TEST(LinearModule, ForwardIsFunctionalLinear) {
  nn::Linear lin(5, 3);
  Tensor x = randn({4, 5});
  EXPECT_TRUE(lin(x).equal(F::linear(x, lin->weight, lin->bias)));
  EXPECT_EQ(lin(randn({2, 7, 5})).sizes(), (std::vector<int64_t>{2, 7, 3}));
  EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  nn::Linear no_bias(nn::LinearOptions(5, 3).bias(false));
  EXPECT_FALSE(no_bias->bias.defined());
  EXPECT_EQ(no_bias->named_parameters().keys(), std::vector<std::string>{"weight"});
  EXPECT_TRUE(no_bias(x).equal(x.matmul(no_bias->weight.t())));
}

TEST(LinearModule, InitialisesAsPyTorch) {
  // kaiming_uniform_(a = sqrt(5)) on [out, in]: uniform in +-1/sqrt(in); bias the same bound.
  manual_seed(0);
  nn::Linear lin(400, 300);
  const double bound = 1.0 / std::sqrt(400.0);
  EXPECT_LE(lin->weight.abs().max().item<double>(), bound);
  EXPECT_GT(lin->weight.abs().max().item<double>(), 0.99 * bound);
  const double std = lin->weight.std().item<double>();
  EXPECT_NEAR(std, bound / std::sqrt(3.0), 0.01 * bound) << "uniform's std is bound/sqrt(3)";
  EXPECT_LE(lin->bias.abs().max().item<double>(), bound);
  EXPECT_GT(lin->bias.abs().max().item<double>(), 0.9 * bound);
  EXPECT_TRUE(lin->weight.requires_grad());
  // reproducible
  manual_seed(0);
  nn::Linear again(400, 300);
  EXPECT_TRUE(again->weight.equal(lin->weight));
}

TEST(LinearModule, PrintsLikeLibTorch) {
  EXPECT_EQ(printed(*nn::Linear(3, 4)),
            "ember::nn::Linear(in_features=3, out_features=4, bias=true)");
  EXPECT_EQ(printed(*nn::Linear(nn::LinearOptions(3, 4).bias(false))),
            "ember::nn::Linear(in_features=3, out_features=4, bias=false)");
  EXPECT_EQ(printed(*nn::Flatten()), "ember::nn::Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(printed(*nn::Unflatten(1, std::vector<int64_t>{2, 5})),
            "ember::nn::Unflatten(dim=1, unflattened_size={2, 5})");
  EXPECT_EQ(printed(*nn::Identity()), "ember::nn::Identity()");
  nn::Sequential seq(nn::Linear(2, 3), nn::ReLU());
  EXPECT_EQ(printed(*seq),
            "ember::nn::Sequential(\n  (0): ember::nn::Linear(in_features=2, out_features=3, "
            "bias=true)\n  (1): ember::nn::ReLU()\n)");
}

TEST(LinearModule, WrongInputNamesTheLayer) {
  nn::Linear lin(5, 3);
  try {
    lin(randn({2, 4}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("linear"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2, 4]"), std::string::npos) << e.what();
  }
}

TEST(FlattenModules, FlattenUnflattenIdentity) {
  Tensor x = randn({2, 3, 4});
  EXPECT_EQ(nn::Flatten()(x).sizes(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(nn::Flatten(nn::FlattenOptions().start_dim(0))(x).sizes(), (std::vector<int64_t>{24}));
  EXPECT_EQ(nn::Unflatten(1, std::vector<int64_t>{3, 2, 2})(x.flatten(1)).sizes(),
            (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_TRUE(nn::Identity(1, "ignored")(x).is_same(x));
}

TEST(BilinearModule, ForwardAndInit) {
  manual_seed(1);
  nn::Bilinear bil(20, 30, 40);
  EXPECT_EQ(bil->weight.sizes(), (std::vector<int64_t>{40, 20, 30}));
  const double bound = 1.0 / std::sqrt(20.0);
  EXPECT_LE(bil->weight.abs().max().item<double>(), bound);
  EXPECT_GT(bil->weight.abs().max().item<double>(), 0.99 * bound);
  Tensor a = randn({3, 20}), b = randn({3, 30});
  EXPECT_TRUE(bil(a, b).equal(F::bilinear(a, b, bil->weight, bil->bias)));
}

TEST(LinearModule, TrainsWithSGD) {
  manual_seed(0);
  nn::Sequential model(nn::Linear(2, 8), nn::Tanh(), nn::Linear(8, 1));
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  Tensor x = randn({64, 2});
  Tensor y = (x.select(1, 0) * 2 - x.select(1, 1)).unsqueeze(1);
  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    Tensor loss = (model(x) - y).pow(2).mean();
    loss.backward();
    opt.step();
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  EXPECT_LT(last, 0.01 * first) << first << " -> " << last;
}

}  // namespace
