// Conv1d/2d/3d and ConvTranspose1d/2d/3d modules: parameters and state_dict as Python's, PyTorch's
// initialisation, LibTorch's printing, padding modes against PyTorch, transposed output_size.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/nn/modules_test_util.h"
#include "tests/support/golden.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;
using ember_test::printed;

namespace {

using Shape = std::vector<int64_t>;

Shape conv_shape_of(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end()); }

TEST(ConvModules, StateDictKeysAndShapesAsPython) {
  nn::Conv2d conv(nn::Conv2dOptions(3, 16, 3));
  auto sd = conv->named_parameters();
  ASSERT_EQ(sd.keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(conv_shape_of(conv->weight), (Shape{16, 3, 3, 3}));
  EXPECT_EQ(conv_shape_of(conv->bias), (Shape{16}));

  nn::Conv1d c1(nn::Conv1dOptions(4, 6, 5).groups(2).bias(false));
  EXPECT_EQ(c1->named_parameters().keys(), std::vector<std::string>{"weight"});
  EXPECT_EQ(conv_shape_of(c1->weight), (Shape{6, 2, 5}));
  EXPECT_FALSE(c1->bias.defined());

  nn::Conv3d c3(nn::Conv3dOptions(2, 4, {1, 2, 3}));
  EXPECT_EQ(conv_shape_of(c3->weight), (Shape{4, 2, 1, 2, 3}));

  // Transposed weights are [in, out/groups, k...], as PyTorch's.
  nn::ConvTranspose2d t2(nn::ConvTranspose2dOptions(6, 4, {3, 2}).groups(2));
  EXPECT_EQ(conv_shape_of(t2->weight), (Shape{6, 2, 3, 2}));
  EXPECT_EQ(conv_shape_of(t2->bias), (Shape{4}));
  nn::ConvTranspose1d t1(3, 5, 4);
  EXPECT_EQ(conv_shape_of(t1->weight), (Shape{3, 5, 4}));
  nn::ConvTranspose3d t3(nn::ConvTranspose3dOptions(2, 3, 2).bias(false));
  EXPECT_EQ(t3->named_parameters().keys(), std::vector<std::string>{"weight"});
  EXPECT_EQ(conv_shape_of(t3->weight), (Shape{2, 3, 2, 2, 2}));

  // A small CNN's state_dict keys, in registration order.
  nn::Sequential net(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::ReLU(),
                     nn::Conv2d(nn::Conv2dOptions(4, 8, 3).stride(2).bias(false)));
  EXPECT_EQ(net->named_parameters().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight"}));
}

TEST(ConvModules, InitialisesAsPyTorch) {
  // kaiming_uniform_(a = sqrt(5)): uniform in ±1/sqrt(fan_in), fan_in = in/groups · Πk.
  manual_seed(0);
  nn::Conv2d conv(nn::Conv2dOptions(32, 64, 3).groups(2));
  const double bound = 1.0 / std::sqrt(16.0 * 9.0);
  EXPECT_LE(conv->weight.abs().max().item<double>(), bound);
  EXPECT_GT(conv->weight.abs().max().item<double>(), 0.99 * bound);
  EXPECT_NEAR(conv->weight.std().item<double>(), bound / std::sqrt(3.0), 0.02 * bound);
  EXPECT_LE(conv->bias.abs().max().item<double>(), bound);
  EXPECT_GT(conv->bias.abs().max().item<double>(), 0.8 * bound);
  // Transposed: fan_in is weight.size(1)·Πk = out/groups · Πk (PyTorch's rule on its weight).
  nn::ConvTranspose2d t(nn::ConvTranspose2dOptions(64, 32, 4));
  const double tbound = 1.0 / std::sqrt(32.0 * 16.0);
  EXPECT_LE(t->weight.abs().max().item<double>(), tbound);
  EXPECT_GT(t->weight.abs().max().item<double>(), 0.99 * tbound);
  manual_seed(0);
  nn::Conv2d again(nn::Conv2dOptions(32, 64, 3).groups(2));
  EXPECT_TRUE(again->weight.equal(conv->weight));
  EXPECT_TRUE(again->bias.equal(conv->bias));
}

TEST(ConvModules, PrintsLikeLibTorch) {
  EXPECT_EQ(printed(*nn::Conv2d(3, 16, 3)),
            "ember::nn::Conv2d(3, 16, kernel_size=[3, 3], stride=[1, 1])");
  EXPECT_EQ(printed(*nn::Conv1d(nn::Conv1dOptions(4, 8, 5).stride(2).padding(2))),
            "ember::nn::Conv1d(4, 8, kernel_size=5, stride=2, padding=2)");
  EXPECT_EQ(printed(*nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 5})
                                    .padding(ember::kSame)
                                    .dilation(2)
                                    .groups(4)
                                    .bias(false)
                                    .padding_mode(ember::kReflect))),
            "ember::nn::Conv2d(4, 8, kernel_size=[3, 5], stride=[1, 1], padding='same', "
            "dilation=[2, 2], groups=4, bias=false, padding_mode=kReflect)");
  EXPECT_EQ(printed(*nn::Conv3d(nn::Conv3dOptions(1, 2, 3).padding(ember::kValid))),
            "ember::nn::Conv3d(1, 2, kernel_size=[3, 3, 3], stride=[1, 1, 1], padding='valid')");
  EXPECT_EQ(printed(*nn::ConvTranspose2d(
                nn::ConvTranspose2dOptions(16, 8, 4).stride(2).padding(1).output_padding(1))),
            "ember::nn::ConvTranspose2d(16, 8, kernel_size=[4, 4], stride=[2, 2], padding=[1, "
            "1], output_padding=[1, 1])");
  EXPECT_EQ(printed(*nn::ConvTranspose1d(nn::ConvTranspose1dOptions(2, 3, 2).bias(false))),
            "ember::nn::ConvTranspose1d(2, 3, kernel_size=2, stride=1, bias=false)");
}

TEST(ConvModules, ForwardIsTheFunctionalForm) {
  manual_seed(1);
  nn::Conv2d conv(nn::Conv2dOptions(3, 4, 3).stride(2).padding(1).dilation({1, 2}));
  Tensor x = randn({2, 3, 9, 8});
  ember_test::expect_same(
      conv(x),
      F::conv2d(x, conv->weight,
                F::Conv2dFuncOptions().bias(conv->bias).stride(2).padding(1).dilation({1, 2})),
      "Conv2d");
  nn::Conv1d c1(nn::Conv1dOptions(2, 3, 4).padding(ember::kSame));
  Tensor x1 = randn({2, 2, 7});
  EXPECT_EQ(conv_shape_of(c1(x1)), (Shape{2, 3, 7}));
  ember_test::expect_same(
      c1(x1), ember::conv1d(x1, c1->weight, c1->bias, 1, std::string_view("same")), "Conv1d");
  nn::ConvTranspose3d t3(nn::ConvTranspose3dOptions(2, 3, 3).stride(2).padding(1));
  Tensor x3 = randn({1, 2, 3, 4, 2});
  EXPECT_EQ(conv_shape_of(t3(x3)), (Shape{1, 3, 5, 7, 3}));
  ember_test::expect_same(t3(x3), ember::conv_transpose3d(x3, t3->weight, t3->bias, 2, 1),
                          "ConvTranspose3d");
}

TEST(ConvModules, TransposedOutputSizeChoosesOutputPadding) {
  manual_seed(2);
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(4, 2, 3).stride(2).padding(1));
  Tensor x = randn({1, 4, 5, 5});
  EXPECT_EQ(conv_shape_of(up(x)), (Shape{1, 2, 9, 9}));
  const std::vector<int64_t> size = {10, 9};
  Tensor y = up(x, IntArrayRef(size));
  EXPECT_EQ(conv_shape_of(y), (Shape{1, 2, 10, 9}));
  ember_test::expect_same(
      y, ember::conv_transpose2d(x, up->weight, up->bias, 2, 1, std::vector<int64_t>{1, 0}),
      "output_size");
  const std::vector<int64_t> full = {1, 2, 10, 10};
  EXPECT_EQ(conv_shape_of(up(x, IntArrayRef(full))), (Shape{1, 2, 10, 10}));
  const std::vector<int64_t> bad = {12, 9};
  expect_error([&] { up(x, IntArrayRef(bad)); },
               {"ConvTranspose2d: requested an output size of [12, 9], but valid sizes range "
                "from [9, 9] to [10, 10] (for an input of [5, 5])"});
}

TEST(ConvModules, WorkInsideSequential) {
  // A generator-style stack: ConvTranspose's optional output_size keeps its default there.
  manual_seed(8);
  nn::Sequential net(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 3, 4).stride(2).padding(1)),
                     nn::ReLU(), nn::Conv2d(nn::Conv2dOptions(3, 2, 3).padding(1)));
  Tensor x = randn({2, 4, 5, 5});
  Tensor y = net->forward(x);
  EXPECT_EQ(conv_shape_of(y), (Shape{2, 2, 10, 10}));
  auto* up = net[0]->as<nn::ConvTranspose2dImpl>();
  auto* conv = net[2]->as<nn::Conv2dImpl>();
  ASSERT_NE(up, nullptr);
  ASSERT_NE(conv, nullptr);
  ember_test::expect_same(y, conv->forward(up->forward(x).relu()), "Sequential");
  nn::AnyModule any(nn::ConvTranspose1d(2, 3, 2));
  const std::vector<int64_t> size = {5};
  EXPECT_EQ(conv_shape_of(any.forward(randn({1, 2, 4}), size)), (Shape{1, 3, 5}));
}

TEST(ConvModules, OptionErrors) {
  expect_error([] { nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)); },
               {"Conv2d: in_channels must be divisible by groups, got in_channels=3, groups=2"});
  expect_error([] { nn::Conv1d(nn::Conv1dOptions(4, 3, 3).groups(2)); },
               {"Conv1d: out_channels must be divisible by groups, got out_channels=3, groups=2"});
  expect_error(
      [] { nn::Conv2d(nn::Conv2dOptions(4, 4, 3).stride(2).padding(ember::kSame)); },
      {"Conv2d: padding='same' is not supported for strided convolutions (stride [2, 2])"});
  expect_error(
      [] {
        nn::ConvTranspose2d t(nn::ConvTranspose2dOptions(2, 2, 3).padding_mode(ember::kReflect));
        t(randn({1, 2, 4, 4}));
      },
      {"ConvTranspose2d: only padding_mode kZeros is supported, got kReflect"});
}

// nn::Conv{D}d with a padding_mode against PyTorch's module (golden op conv_padding_mode).
template <size_t D, class Module, class Options>
void conv_check_padding_mode(const GoldenCase& c) {
  Options o(c.args[1].size(1) * c.ints.at(0), c.args[1].size(0),
            ExpandingArray<D>(IntArrayRef(c.args[1].sizes()).slice(2)));
  o.stride(ExpandingArray<D>(c.int_lists.at(0)))
      .dilation(ExpandingArray<D>(c.int_lists.at(2)))
      .groups(c.ints.at(0));
  if (c.strs.size() > 1)
    o.padding(ember::kSame);
  else
    o.padding(ExpandingArray<D>(c.int_lists.at(1)));
  const std::string& mode = c.strs.at(0);
  if (mode == "reflect") o.padding_mode(ember::kReflect);
  if (mode == "replicate") o.padding_mode(ember::kReplicate);
  if (mode == "circular") o.padding_mode(ember::kCircular);
  Module m(o);
  {
    NoGradGuard g;
    m->weight.copy_(c.args[1]);
    m->bias.copy_(c.args[2]);
  }
  Tensor x = c.args[0].clone().requires_grad_(true);
  Tensor y = m(x);
  expect_close(y, c.outs[0], 1.3e-6, 1e-5, c.name);
  (y * c.args[3]).sum().backward();
  expect_close(x.grad(), c.outs[1], 1e-4, 1e-5, c.name + " d/dinput");
  expect_close(m->weight.grad(), c.outs[2], 1e-4, 1e-5, c.name + " d/dweight");
  expect_close(m->bias.grad(), c.outs[3], 1e-4, 1e-5, c.name + " d/dbias");
}

TEST(ConvModules, PaddingModesMatchPyTorch) {
  const auto cases = golden_cases_for(load_golden("nn_conv"), "conv_padding_mode");
  ASSERT_EQ(cases.size(), 5u);
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.location + " " + c.call);
    const int64_t spatial = c.args[1].dim() - 2;
    if (spatial == 1) conv_check_padding_mode<1, nn::Conv1d, nn::Conv1dOptions>(c);
    if (spatial == 2) conv_check_padding_mode<2, nn::Conv2d, nn::Conv2dOptions>(c);
    if (spatial == 3) conv_check_padding_mode<3, nn::Conv3d, nn::Conv3dOptions>(c);
  }
}

TEST(ConvModules, ReflectPaddingLargerThanInputIsAnError) {
  // The padding modes go through F::pad, whose error names the mode, the padding and the input.
  nn::Conv1d c(nn::Conv1dOptions(1, 1, 3).padding(3).padding_mode(ember::kReflect));
  expect_error([&] { c(randn({1, 1, 3})); }, {"reflect", "(3, 3)", "[1, 1, 3]"});
}

}  // namespace
