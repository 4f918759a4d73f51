// The pad family's modules: forward is the functional form, printing as LibTorch's, no parameters
// or buffers (an empty state_dict, as Python's), and clone.
#include <gtest/gtest.h>

#include "tests/nn/modules_test_util.h"

namespace {

namespace F = ember::nn::functional;
namespace nn = ember::nn;
using ember::Tensor;
using ember_test::expect_same;
using ember_test::printed;

Tensor pad_module_input(std::vector<int64_t> shape) {
  ember::manual_seed(5);
  return ember::randn(shape);
}

template <class M>
void pad_expect_stateless(const M& m) {
  EXPECT_TRUE(m->parameters().empty());
  EXPECT_TRUE(m->buffers().empty());
  EXPECT_EQ(m->named_parameters().size(), 0u);
}

TEST(PadModules, ReflectionReplicationCircularMatchFPad) {
  const Tensor x1 = pad_module_input({2, 3, 5}), x2 = pad_module_input({2, 2, 4, 5});
  const Tensor x3 = pad_module_input({1, 2, 3, 4, 4});
  auto opts = [](std::vector<int64_t> p, F::PadFuncOptions::mode_t m) {
    return F::PadFuncOptions(std::move(p)).mode(m);
  };
  expect_same(nn::ReflectionPad1d(nn::ReflectionPad1dOptions({3, 1}))(x1),
              F::pad(x1, opts({3, 1}, ember::kReflect)), "ReflectionPad1d");
  expect_same(nn::ReflectionPad2d(2)(x2), F::pad(x2, opts({2, 2, 2, 2}, ember::kReflect)),
              "ReflectionPad2d");
  expect_same(nn::ReflectionPad3d(nn::ReflectionPad3dOptions({1, 1, 2, 0, 1, 1}))(x3),
              F::pad(x3, opts({1, 1, 2, 0, 1, 1}, ember::kReflect)), "ReflectionPad3d");
  expect_same(nn::ReplicationPad1d(nn::ReplicationPad1dOptions({3, 1}))(x1),
              F::pad(x1, opts({3, 1}, ember::kReplicate)), "ReplicationPad1d");
  expect_same(nn::ReplicationPad2d(nn::ReplicationPad2dOptions({1, 1, 2, 0}))(x2),
              F::pad(x2, opts({1, 1, 2, 0}, ember::kReplicate)), "ReplicationPad2d");
  expect_same(nn::ReplicationPad3d(1)(x3), F::pad(x3, opts({1, 1, 1, 1, 1, 1}, ember::kReplicate)),
              "ReplicationPad3d");
  expect_same(nn::CircularPad1d(nn::CircularPad1dOptions({2, 1}))(x1),
              F::pad(x1, opts({2, 1}, ember::kCircular)), "CircularPad1d");
  expect_same(nn::CircularPad2d(nn::CircularPad2dOptions({1, 2, 0, 3}))(x2),
              F::pad(x2, opts({1, 2, 0, 3}, ember::kCircular)), "CircularPad2d");
  expect_same(nn::CircularPad3d(1)(x3), F::pad(x3, opts({1, 1, 1, 1, 1, 1}, ember::kCircular)),
              "CircularPad3d");
}

TEST(PadModules, ZeroAndConstantMatchFPad) {
  const Tensor x = pad_module_input({2, 2, 3, 4, 3});
  expect_same(nn::ZeroPad1d(nn::ZeroPad1dOptions({2, -1}))(x),
              F::pad(x, F::PadFuncOptions({2, -1})), "ZeroPad1d");
  expect_same(nn::ZeroPad2d(nn::ZeroPad2dOptions({1, 1, 2, 0}))(x),
              F::pad(x, F::PadFuncOptions({1, 1, 2, 0})), "ZeroPad2d");
  expect_same(nn::ZeroPad3d(1)(x), F::pad(x, F::PadFuncOptions({1, 1, 1, 1, 1, 1})), "ZeroPad3d");
  expect_same(nn::ConstantPad1d(nn::ConstantPad1dOptions({3, 1}, 3.5))(x),
              F::pad(x, F::PadFuncOptions({3, 1}).value(3.5)), "ConstantPad1d");
  expect_same(nn::ConstantPad2d(nn::ConstantPad2dOptions({3, 0, 2, 1}, -1.0))(x),
              F::pad(x, F::PadFuncOptions({3, 0, 2, 1}).value(-1.0)), "ConstantPad2d");
  expect_same(nn::ConstantPad3d(nn::ConstantPad3dOptions(2, 0.5))(x),
              F::pad(x, F::PadFuncOptions({2, 2, 2, 2, 2, 2}).value(0.5)), "ConstantPad3d");
  const Tensor y = nn::ConstantPad2d(nn::ConstantPad2dOptions({1, 0, 0, 0}, 3.5))(x);
  EXPECT_EQ(y[0][0][0][0][0].item<float>(), 3.5f);
}

TEST(PadModules, PrettyPrintAsLibTorch) {
  EXPECT_EQ(printed(*nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 1, 2, 0}))),
            "ember::nn::ReflectionPad2d(padding=[1, 1, 2, 0])");
  EXPECT_EQ(printed(*nn::ReplicationPad1d(2)), "ember::nn::ReplicationPad1d(padding=[2, 2])");
  EXPECT_EQ(printed(*nn::CircularPad3d(1)), "ember::nn::CircularPad3d(padding=[1, 1, 1, 1, 1, 1])");
  EXPECT_EQ(printed(*nn::ZeroPad2d(nn::ZeroPad2dOptions({1, 2, 3, 4}))),
            "ember::nn::ZeroPad2d(padding=[1, 2, 3, 4])");
  EXPECT_EQ(printed(*nn::ConstantPad1d(nn::ConstantPad1dOptions(2, 3.5))),
            "ember::nn::ConstantPad1d(padding=[2, 2], value=3.5)");
  EXPECT_EQ(printed(*nn::PixelShuffle(2)), "ember::nn::PixelShuffle(upscale_factor=2)");
  EXPECT_EQ(printed(*nn::PixelUnshuffle(3)), "ember::nn::PixelUnshuffle(downscale_factor=3)");
  EXPECT_EQ(printed(*nn::ChannelShuffle(4)), "ember::nn::ChannelShuffle(groups=4)");
  EXPECT_EQ(printed(*nn::Fold(nn::FoldOptions({4, 5}, 2).stride(2))),
            "ember::nn::Fold(output_size=[4, 5], kernel_size=[2, 2], dilation=[1, 1], "
            "padding=[0, 0], stride=[2, 2])");
  EXPECT_EQ(printed(*nn::Unfold(nn::UnfoldOptions({2, 3}).padding(1))),
            "ember::nn::Unfold(kernel_size=[2, 3], dilation=[1, 1], padding=[1, 1], "
            "stride=[1, 1])");
}

TEST(PadModules, NoStateAndClonesIndependently) {
  nn::ReflectionPad2d pad(1);
  pad_expect_stateless(pad);
  EXPECT_TRUE(pad->named_buffers().is_empty());
  pad_expect_stateless(nn::PixelShuffle(2));
  pad_expect_stateless(nn::Fold(nn::FoldOptions(3, 2)));
  auto copy = std::dynamic_pointer_cast<nn::ReflectionPad2dImpl>(pad->clone());
  ASSERT_NE(copy, nullptr);
  copy->options.padding({2, 2, 2, 2});
  EXPECT_EQ((*pad->options.padding())[0], 1);
  const Tensor x = pad_module_input({1, 1, 3, 3});
  EXPECT_EQ(copy->forward(x).sizes(), (ember::IntArrayRef{1, 1, 7, 7}));
  EXPECT_EQ(pad(x).sizes(), (ember::IntArrayRef{1, 1, 5, 5}));
}

TEST(PadModules, ShuffleAndFoldModulesMatchFunctional) {
  const Tensor x = pad_module_input({2, 8, 3, 4});
  expect_same(nn::PixelShuffle(2)(x), F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2)),
              "PixelShuffle");
  expect_same(nn::PixelUnshuffle(nn::PixelUnshuffleOptions(2))(pad_module_input({1, 2, 4, 6})),
              F::pixel_unshuffle(pad_module_input({1, 2, 4, 6}), F::PixelUnshuffleFuncOptions(2)),
              "PixelUnshuffle");
  // Shuffle and unshuffle are inverses.
  expect_same(nn::PixelUnshuffle(2)(nn::PixelShuffle(2)(x)), x, "PixelUnshuffle(PixelShuffle)");
  const Tensor cs = nn::ChannelShuffle(2)(x);
  expect_same(cs, F::channel_shuffle(x, F::ChannelShuffleFuncOptions(2)), "ChannelShuffle");
  // Channel 1 of the shuffle is channel 4 of the input (2 groups of 4: i·4 + j -> j·2 + i).
  expect_same(cs.select(1, 1), x.select(1, 4), "ChannelShuffle order");
  nn::Unfold unfold(nn::UnfoldOptions({2, 3}).padding(1).stride({2, 1}));
  nn::Fold fold(nn::FoldOptions({3, 4}, {2, 3}).padding(1).stride({2, 1}));
  const Tensor cols = unfold(x);
  expect_same(cols, F::unfold(x, F::UnfoldFuncOptions({2, 3}).padding(1).stride({2, 1})), "Unfold");
  EXPECT_EQ(cols.sizes(), (ember::IntArrayRef{2, 48, 8}));  // blocks: 2 x 4
  expect_same(fold(cols),
              F::fold(cols, F::FoldFuncOptions({3, 4}, {2, 3}).padding(1).stride({2, 1})), "Fold");
}

}  // namespace
