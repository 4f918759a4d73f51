// After manual_seed(s), Ember's layers start from the weights PyTorch's start from
// (tests/golden/gen/random.py): same generator, same draws, same order.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "tests/support/golden.h"

using namespace ember;

namespace {

const GoldenCase& golden_case(const std::string& name) {
  static const std::vector<GoldenCase> cases = load_golden("random");
  for (const GoldenCase& c : cases)
    if (c.name == name) return c;
  throw std::runtime_error("no golden case " + name);
}

TEST(InitParity, LinearStartsFromPyTorchsWeights) {
  for (const char* name : {"linear_init/5x3", "linear_init/784x10"}) {
    const GoldenCase& c = golden_case(name);
    manual_seed(static_cast<uint64_t>(c.ints.at(0)));
    nn::Linear lin(c.ints.at(1), c.ints.at(2));
    // kaiming_uniform_'s bound may round differently in the last bit: compare to float32 ulps.
    expect_close(lin->weight.detach(), c.outs[0], 1e-6, 1e-7, std::string(name) + " weight");
    expect_close(lin->bias.detach(), c.outs[1], 1e-6, 1e-7, std::string(name) + " bias");
  }
}

TEST(InitParity, ExampleMlpAndBatchOrderMatchPyTorch) {
  const GoldenCase& c = golden_case("mlp_init/784_512_256_10");
  manual_seed(0);
  // Braces: C++ evaluates a braced list left to right (parentheses leave the order to the
  // compiler, and GCC builds the last Linear first), so the layers draw in Python's order.
  nn::Sequential mlp{nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 256), nn::ReLU(),
                     nn::Linear(256, 10)};
  std::vector<Tensor> params = mlp->parameters();
  ASSERT_EQ(params.size(), 6u);
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor first = params[i].detach().reshape({-1}).slice(0, 0, 64);
    expect_close(first, c.outs[i], 1e-6, 1e-7, "parameter " + std::to_string(i));
  }
  EXPECT_TRUE(randperm(60000).slice(0, 0, 64).equal(c.outs[6]));
}

}  // namespace
