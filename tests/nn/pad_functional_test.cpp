// The pad family beyond the golden table (tests/nn/nn_ops_pad.cpp): error messages, channels-last
// inputs, 16-bit and integer dtypes, zero-size inputs with backward, and double backward.
#include <gtest/gtest.h>

#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"
#include "ember/nn/functional.h"
#include "tests/support/expect_error.h"

namespace {

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::expect_error;

Tensor pad_test_input(std::vector<int64_t> shape, ember::ScalarType dtype = ember::kFloat) {
  ember::manual_seed(7);
  return ember::randn(shape).to(dtype);
}

Tensor pad_test_reflect(const Tensor& x, std::vector<int64_t> pad) {
  return F::pad(x, F::PadFuncOptions(std::move(pad)).mode(ember::kReflect));
}

TEST(PadErrors, ReflectPaddingAtLeastTheInputSize) {
  expect_error<ember::ValueError>(
      [] {
        pad_test_reflect(pad_test_input({1, 2, 3}), {3, 1});
      },
      {"pad (reflect): padding size should be less than the "
       "corresponding input dimension, but got padding (3, 1) at "
       "dimension 2 of input [1, 2, 3]"});
  expect_error<ember::ValueError>(
      [] {
        ember::reflection_pad2d(pad_test_input({2, 3, 4}), {1, 1, 3, 0});
      },
      {"reflection_pad2d: padding size should be less than", "(3, 0)",
       "dimension 1 of input [2, 3, 4]"});
}

TEST(PadErrors, OddOrTooLongPadList) {
  expect_error<ember::ValueError>(
      [] {
        F::pad(pad_test_input({2, 3}), F::PadFuncOptions({1, 2, 3}));
      },
      {"pad: padding length must be divisible by 2", "got 3 values [1, 2, 3]"});
  expect_error<ember::ValueError>(
      [] {
        F::pad(pad_test_input({2, 3}), F::PadFuncOptions({1, 1, 1, 1, 1, 1}));
      },
      {"pad: padding length too large", "input [2, 3] has (2 dims, so at most 4 values)"});
}

TEST(PadErrors, NonConstantModesNeedABatchedOrUnbatchedRank) {
  expect_error<ember::ValueError>(
      [] {
        F::pad(pad_test_input({5}), F::PadFuncOptions({1, 1}).mode(ember::kReplicate));
      },
      {"pad: mode \"replicate\" pads the last 1, 2 or 3 dims", "got 2 pad values for input [5]"});
  expect_error<ember::ValueError>(
      [] {
        F::pad(pad_test_input({2, 2, 2, 3, 4}), F::PadFuncOptions({1, 1}).mode(ember::kReflect));
      },
      {"got 2 pad values for input [2, 2, 2, 3, 4]"});
  expect_error<ember::ValueError>(
      [] {
        ember::reflection_pad1d(pad_test_input({2, 0, 4}), {1, 1});
      },
      {"reflection_pad1d: expected a 2-D or 3-D (batched) input with non-zero sizes outside the "
       "batch dim, but got input [2, 0, 4] (dim 1 is empty)"});
}

TEST(PadErrors, ValueOnlyForConstantMode) {
  expect_error<ember::ValueError>(
      [] {
        F::pad(pad_test_input({2, 3}), F::PadFuncOptions({1, 1}).mode(ember::kReflect).value(2));
      },
      {"pad: padding mode \"reflect\" doesn't take in value argument (got 2)"});
  // Value 0 is "not given", as in LibTorch.
  EXPECT_EQ(F::pad(pad_test_input({2, 3}), F::PadFuncOptions({1, 1}).mode(ember::kReflect).value(0))
                .sizes(),
            (ember::IntArrayRef{2, 5}));
}

TEST(PadErrors, CircularWrapsAtMostOnce) {
  expect_error<ember::ValueError>(
      [] {
        ember::_pad_circular(pad_test_input({1, 2, 3}), {4, 0});
      },
      {"_pad_circular: padding (4, 0) at dimension 2 of input [1, 2, 3] wraps around more than "
       "once"});
  expect_error<ember::ValueError>(
      [] {
        ember::replication_pad1d(pad_test_input({1, 2, 3}), {-2, -1});
      },
      {"replication_pad1d: input [1, 2, 3] is too small along dimension 2: size 3 with padding "
       "(-2, -1) gives an output size of 0, expected at least 1"});
  expect_error(
      [] {
        F::pad(pad_test_input({1, 2, 3}), F::PadFuncOptions({-2, -2}));
      },
      {"constant_pad_nd: the input size 3, plus negative padding -2 and -2 resulted in a negative "
       "output size"});
}

TEST(PadErrors, ShuffleFactorsMustDivide) {
  expect_error<ember::ValueError>(
      [] {
        F::pixel_shuffle(pad_test_input({1, 6, 2, 2}), F::PixelShuffleFuncOptions(2));
      },
      {"pixel_shuffle: expects its input's 'channel' dimension to be divisible by the square of "
       "upscale_factor, but input.size(-3)=6 is not divisible by 4"});
  expect_error<ember::ValueError>(
      [] {
        F::pixel_shuffle(pad_test_input({4, 2}), F::PixelShuffleFuncOptions(2));
      },
      {"pixel_shuffle: expects input to have at least 3 dimensions, but got input [4, 2]"});
  expect_error<ember::ValueError>(
      [] {
        F::pixel_unshuffle(pad_test_input({1, 1, 4, 3}), F::PixelUnshuffleFuncOptions(2));
      },
      {"pixel_unshuffle: expects width to be divisible by downscale_factor, but input.size(-1)=3 "
       "is not divisible by 2"});
  expect_error<ember::ValueError>(
      [] {
        F::channel_shuffle(pad_test_input({1, 6, 4}), F::ChannelShuffleFuncOptions(4));
      },
      {"channel_shuffle: number of channels must be divisible by groups, but got 6 channels and "
       "4 groups"});
}

TEST(PadErrors, FoldSizesMustBeConsistent) {
  expect_error<ember::ValueError>(
      [] {
        F::fold(pad_test_input({1, 8, 5}), F::FoldFuncOptions({3, 4}, {2, 2}));
      },
      {"col2im: given output_size=(3, 4), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
       "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of "
       "sliding blocks 2 * 3 = 6, but got input.size(2)=5"});
  expect_error<ember::ValueError>(
      [] {
        F::fold(pad_test_input({1, 7, 6}), F::FoldFuncOptions({3, 4}, {2, 2}));
      },
      {"col2im: expected size of input's dimension 1 to be divisible by the product of "
       "kernel_size, but got input.size(1)=7 and kernel_size=(2, 2)"});
  expect_error<ember::ValueError>(
      [] {
        F::unfold(pad_test_input({1, 1, 2, 2}), F::UnfoldFuncOptions(3));
      },
      {"im2col: given input with spatial size (2, 2), kernel_size=(3, 3)", "would be empty"});
  expect_error<ember::ValueError>(
      [] {
        F::unfold(pad_test_input({1, 1, 4, 4}), F::UnfoldFuncOptions(2).stride(0));
      },
      {"im2col: stride should be greater than zero, but got stride=(0, 0)"});
}

TEST(PadChannelsLast, OutputsMatchAndKeepTheFormat) {
  const Tensor x = pad_test_input({2, 3, 4, 5});
  const Tensor xl = x.contiguous(ember::MemoryFormat::ChannelsLast);
  const Tensor y = pad_test_reflect(xl, {1, 2, 2, 1});
  EXPECT_TRUE(y.is_contiguous(ember::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(ember::equal(y, pad_test_reflect(x, {1, 2, 2, 1})));
  const Tensor s =
      F::pixel_shuffle(pad_test_input({1, 8, 3, 2}).contiguous(ember::MemoryFormat::ChannelsLast),
                       F::PixelShuffleFuncOptions(2));
  EXPECT_TRUE(s.is_contiguous(ember::MemoryFormat::ChannelsLast));
  const Tensor x5 = pad_test_input({1, 2, 3, 3, 4});
  const Tensor y5 = F::pad(x5.contiguous(ember::MemoryFormat::ChannelsLast3d),
                           F::PadFuncOptions({1, 1, 0, 2, 1, 0}).mode(ember::kCircular));
  EXPECT_TRUE(y5.is_contiguous(ember::MemoryFormat::ChannelsLast3d));
  EXPECT_TRUE(
      ember::equal(y5, F::pad(x5, F::PadFuncOptions({1, 1, 0, 2, 1, 0}).mode(ember::kCircular))));
}

TEST(PadDtypes, SixteenBitPaddingMovesValuesExactly) {
  for (ember::ScalarType t : {ember::kHalf, ember::kBFloat16}) {
    const Tensor x = pad_test_input({2, 3, 4}, t);
    for (auto mode :
         {F::PadFuncOptions::mode_t(ember::kReflect), F::PadFuncOptions::mode_t(ember::kReplicate),
          F::PadFuncOptions::mode_t(ember::kCircular)}) {
      const Tensor y = F::pad(x, F::PadFuncOptions({2, 1}).mode(mode));
      EXPECT_EQ(y.dtype(), t);
      EXPECT_TRUE(ember::equal(y.to(ember::kFloat),
                               F::pad(x.to(ember::kFloat), F::PadFuncOptions({2, 1}).mode(mode))));
    }
    // The gradient is summed in float32 and rounded once.
    const Tensor xg = x.detach().requires_grad_(true);
    ember::manual_seed(3);
    const Tensor cot = ember::randn({2, 3, 7}).to(t);
    pad_test_reflect(xg, {2, 1}).backward(cot);
    const Tensor xf = x.to(ember::kFloat).requires_grad_(true);
    pad_test_reflect(xf, {2, 1}).backward(cot.to(ember::kFloat));
    EXPECT_TRUE(ember::equal(xg.grad(), xf.grad().to(t)));
  }
}

TEST(PadDtypes, IntegerInputsPad) {
  const Tensor x = ember::arange(12, ember::TensorOptions().dtype(ember::kLong)).reshape({1, 3, 4});
  const Tensor c = F::pad(x, F::PadFuncOptions({1, 0}).value(-1));
  EXPECT_EQ(c.dtype(), ember::kLong);
  EXPECT_EQ(c[0][1][0].item<int64_t>(), -1);
  EXPECT_EQ(c[0][1][1].item<int64_t>(), 4);
  const Tensor r = pad_test_reflect(x, {2, 1});
  EXPECT_EQ(r.dtype(), ember::kLong);
  EXPECT_TRUE(ember::equal(r, pad_test_reflect(x.to(ember::kDouble), {2, 1}).to(ember::kLong)));
}

TEST(PadZeroSize, EmptyBatchesPadAndBackward) {
  const Tensor x = ember::zeros({0, 2, 3, 4}).requires_grad_(true);
  const Tensor y = F::pad(x, F::PadFuncOptions({1, 1, 2, 2}).mode(ember::kReplicate));
  EXPECT_EQ(y.sizes(), (ember::IntArrayRef{0, 2, 7, 6}));
  y.sum().backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
  const Tensor cols = ember::zeros({0, 8, 4}).requires_grad_(true);
  const Tensor img = F::fold(cols, F::FoldFuncOptions({3, 3}, {2, 2}));
  EXPECT_EQ(img.sizes(), (ember::IntArrayRef{0, 2, 3, 3}));
  img.sum().backward();
  EXPECT_EQ(cols.grad().sizes(), cols.sizes());
}

TEST(PadDoubleBackward, IndexPaddingAndFoldPassGradgradcheck) {
  ember::manual_seed(11);
  const Tensor x =
      ember::randn({1, 2, 3, 4}, ember::TensorOptions().dtype(ember::kDouble)).requires_grad_(true);
  for (auto mode :
       {F::PadFuncOptions::mode_t(ember::kReflect), F::PadFuncOptions::mode_t(ember::kReplicate),
        F::PadFuncOptions::mode_t(ember::kCircular)}) {
    auto fn = [mode](const ember::autograd::variable_list& in) {
      return ember::autograd::variable_list{
          F::pad(in[0], F::PadFuncOptions({2, -1, 1, 2}).mode(mode)).square()};
    };
    EXPECT_TRUE(ember::autograd::gradgradcheck(fn, {x}));
  }
  auto fold_fn = [](const ember::autograd::variable_list& in) {
    const Tensor cols = F::unfold(in[0], F::UnfoldFuncOptions({2, 3}).padding(1).stride({1, 2}));
    return ember::autograd::variable_list{
        F::fold(cols.square(), F::FoldFuncOptions({3, 4}, {2, 3}).padding(1).stride({1, 2}))};
  };
  EXPECT_TRUE(ember::autograd::gradgradcheck(fold_fn, {x}));
}

TEST(PadDispatch, KernelRowsAreRegisteredOnTheCpu) {
  // Unfold of an unbatched image is the batched result's first entry.
  const Tensor x = pad_test_input({2, 5, 6});
  const Tensor a = ember::im2col(x, {2, 2}, {1, 2}, {1, 0}, {2, 1});
  const Tensor b = ember::im2col(x.unsqueeze(0), {2, 2}, {1, 2}, {1, 0}, {2, 1})[0];
  EXPECT_TRUE(ember::equal(a, b));
  // col2im sums overlapping blocks: folding unfold(ones) counts how many blocks cover a pixel.
  const Tensor ones = ember::ones({1, 1, 3, 3});
  const Tensor count = F::fold(F::unfold(ones, F::UnfoldFuncOptions(2)), F::FoldFuncOptions(3, 2));
  EXPECT_EQ(count[0][0][1][1].item<float>(), 4.0f);
  EXPECT_EQ(count[0][0][0][0].item<float>(), 1.0f);
  EXPECT_EQ(count[0][0][0][1].item<float>(), 2.0f);
}

}  // namespace

namespace {

TEST(PadStrided, TransposedInputsMatchContiguousOnes) {
  const Tensor x = pad_test_input({2, 5, 4}).transpose(1, 2);  // [2, 4, 5], not contiguous
  ASSERT_FALSE(x.is_contiguous());
  for (const char* mode : {"reflect", "replicate", "circular", "constant"}) {
    EXPECT_TRUE(ember::equal(ember::pad(x, {2, 1, 1, 3}, mode),
                             ember::pad(x.contiguous(), {2, 1, 1, 3}, mode)))
        << mode;
  }
  const Tensor img = pad_test_input({1, 2, 5, 4}).transpose(2, 3);
  EXPECT_TRUE(ember::equal(ember::im2col(img, {2, 2}, {1, 1}, {1, 0}, {1, 2}),
                           ember::im2col(img.contiguous(), {2, 2}, {1, 1}, {1, 0}, {1, 2})));
}

TEST(PadStrided, AtenStyleFormsAgreeWithFPad) {
  const Tensor x = pad_test_input({2, 3, 4, 5});
  EXPECT_TRUE(ember::equal(ember::reflection_pad2d(x, {1, 2, 3, 0}),
                           ember::pad(x, {1, 2, 3, 0}, "reflect")));
  EXPECT_TRUE(ember::equal(ember::replication_pad3d(x, {1, 1, 0, 2, 1, 0}),
                           ember::pad(x, {1, 1, 0, 2, 1, 0}, "replicate")));
  EXPECT_TRUE(
      ember::equal(ember::_pad_circular(x, {1, 1, 2, 0}), ember::pad(x, {1, 1, 2, 0}, "circular")));
  EXPECT_TRUE(
      ember::equal(ember::pad(x, {1, 1}, "constant", 2.0), ember::constant_pad_nd(x, {1, 1}, 2.0)));
  expect_error(
      [&] {
        ember::pad(x, {1, 1}, "mirror");
      },
      {"pad: unrecognised padding mode \"mirror\": expected \"constant\", \"reflect\", "
       "\"replicate\" or \"circular\""});
  expect_error<ember::ValueError>(
      [&] {
        ember::reflection_pad1d(x[0], {1, 1, 1, 1});
      },
      {"reflection_pad1d: padding must have 2 values, but got 4"});
}

}  // namespace
