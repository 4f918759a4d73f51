// The Upsample module (src/nn/modules/upsampling.cpp): forward equals F::interpolate, no state,
// printing, clone, errors that name the module.
#include <gtest/gtest.h>

#include "ember/nn/functional/upsampling.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::expect_same;
using ember_test::printed;

namespace {

TEST(UpsampleModule, ForwardEqualsInterpolate) {
  Tensor x = randn({2, 3, 4, 5});
  nn::Upsample near(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 3}));
  expect_same(
      near(x),
      F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 3})),
      "nearest");
  EXPECT_EQ(near(x).sizes(), IntArrayRef({2, 3, 8, 15}));
  nn::Upsample bil(
      nn::UpsampleOptions().size(std::vector<int64_t>{7, 6}).mode(kBilinear).align_corners(true));
  expect_same(bil(x),
              F::interpolate(x, F::InterpolateFuncOptions()
                                    .size(std::vector<int64_t>{7, 6})
                                    .mode(kBilinear)
                                    .align_corners(true)),
              "bilinear");
}

TEST(UpsampleModule, HasNoState) {
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2}));
  EXPECT_TRUE(up->parameters().empty());
  EXPECT_TRUE(up->buffers().empty());
  EXPECT_TRUE(up->state_dict().is_empty());
}

TEST(UpsampleModule, PrettyPrintAsLibTorch) {
  nn::Upsample a(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}));
  EXPECT_EQ(printed(*a), "ember::nn::Upsample(scale_factor=[2, 2], mode=kNearest)");
  nn::Upsample b(nn::UpsampleOptions().size(std::vector<int64_t>{4, 6}).mode(kBicubic));
  EXPECT_EQ(printed(*b), "ember::nn::Upsample(size=[4, 6], mode=kBicubic)");
}

TEST(UpsampleModule, CloneKeepsOptions) {
  nn::Upsample up(nn::UpsampleOptions().size(std::vector<int64_t>{5}).mode(kLinear));
  auto copy = std::dynamic_pointer_cast<nn::UpsampleImpl>(up->clone());
  ASSERT_TRUE(copy);
  Tensor x = randn({1, 2, 3});
  expect_same(copy->forward(x), up(x), "clone");
}

TEST(UpsampleModule, ErrorsNameTheModule) {
  nn::Upsample up(nn::UpsampleOptions().size(std::vector<int64_t>{4, 4}).mode(kBilinear));
  expect_error(
      [&] {
        up(randn({2, 3, 5}));
      },
      {"Upsample: interpolate: mode bilinear expects a 4-D input [N, C, H, W], but got "
       "a 3-D input [2, 3, 5]"});
  nn::Upsample neither;
  expect_error<ValueError>(
      [&] {
        neither(randn({1, 1, 2, 2}));
      },
      {"Upsample: interpolate: exactly one of size and scale_factor must be given, but got "
       "neither"});
  nn::Upsample aligned(
      nn::UpsampleOptions().scale_factor(std::vector<double>{2}).align_corners(true));
  expect_error<ValueError>(
      [&] {
        aligned(randn({1, 1, 2, 2}));
      },
      {"align_corners can only be set with the interpolating modes"});
}

TEST(UpsampleModule, BackwardThroughTheModule) {
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}));
  Tensor x = randn({1, 2, 3, 3}).requires_grad_(true);
  up(x).sum().backward();
  // Nearest 2x: every input pixel feeds four outputs.
  EXPECT_TRUE(allclose(x.grad(), full({1, 2, 3, 3}, 4.0)));
}

}  // namespace
