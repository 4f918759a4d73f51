// ember::conv*/F::conv* beyond the golden table: error messages, channels-last inputs and
// outputs, bfloat16 against float32, empty inputs with backward, double backward, and the
// direct float64 loops against oneDNN's float32 kernels on a larger case.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember_test::expect_error;

namespace {

using Shape = std::vector<int64_t>;

Shape conv_fn_shape(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end()); }

TEST(ConvFunctional, ChannelMismatchNamesBothShapes) {
  expect_error(
      [] {
        conv2d(randn({8, 4, 32, 32}), randn({16, 3, 3, 3}));
      },
      {"conv2d: expected input with 3 channels, got 4 (input [8, 4, 32, 32], weight "
       "[16, 3, 3, 3])"});
  expect_error(
      [] {
        conv1d(randn({2, 5, 8}), randn({4, 2, 3}), {}, 1, 0, 1, 2);
      },
      {"conv1d: expected input with 4 channels, got 5 (input [2, 5, 8], weight [4, 2, "
       "3])"});
  expect_error(
      [] {
        conv_transpose2d(randn({1, 3, 4, 4}), randn({2, 3, 3, 3}));
      },
      {"conv_transpose2d: expected input with 2 channels, got 3"});
}

TEST(ConvFunctional, RankGroupsAndSizeErrors) {
  expect_error(
      [] {
        conv2d(randn({4, 4}), randn({2, 4, 3, 3}));
      },
      {"conv2d: expected a 3-D (unbatched) or 4-D (batched) input, got input [4, 4] "
       "(2-D)"});
  expect_error(
      [] {
        conv2d(randn({1, 4, 5, 5}), randn({2, 4, 3}));
      },
      {"conv2d: expected a 4-D weight [out_channels, in_channels/groups, "
       "*kernel_size], got weight [2, 4, 3]"});
  expect_error(
      [] {
        conv2d(randn({1, 4, 5, 5}), randn({3, 2, 3, 3}), {}, 1, 0, 1, 2);
      },
      {"conv2d: groups=2 must divide the output channels, but weight [3, 2, 3, 3] has "
       "3"});
  expect_error(
      [] {
        conv2d(randn({1, 2, 2, 2}), randn({3, 2, 3, 3}));
      },
      {"conv2d: the output would be empty: the padded input [2, 2] is smaller than the "
       "dilated kernel [3, 3] (input [1, 2, 2, 2], kernel_size [3, 3], dilation [1, 1])"});
  expect_error(
      [] {
        conv1d(randn({1, 2, 8}), randn({3, 2, 3}), {}, 2, std::string_view("same"));
      },
      {"conv1d: padding='same' is not supported for strided convolutions (stride [2])"});
  expect_error(
      [] {
        conv1d(randn({1, 2, 8}), randn({3, 2, 3}), {}, 1, std::string_view("full"));
      },
      {"conv1d: padding must be \"same\", \"valid\" or integers, got \"full\""});
  expect_error(
      [] {
        conv2d(randn({1, 2, 5, 5}), randn({3, 2, 3, 3}), randn({4}));
      },
      {"conv2d: expected bias of shape [3], got bias [4]"});
  expect_error<TypeError>(
      [] {
        conv2d(randn({1, 2, 5, 5}), randn({3, 2, 3, 3}, kDouble));
      },
      {"conv2d: input (float32) and weight (float64) must have the same "
       "dtype"});
  expect_error(
      [] {
        conv_transpose1d(randn({1, 2, 5}), randn({2, 3, 3}), {}, 2, 0, 2);
      },
      {"conv_transpose1d: output_padding must be smaller than either stride or "
       "dilation"});
  expect_error(
      [] {
        conv2d(randn({1, 2, 5, 5}), randn({3, 2, 3, 3}), {}, 0);
      },
      {"conv2d: stride must be positive, got [0, 0]"});
  expect_error(
      [] {
        conv2d(randn({1, 2, 5, 5}), randn({3, 2, 3, 3}), {}, 1, -1);
      },
      {"conv2d: padding must be non-negative, got [-1, -1]"});
  expect_error(
      [] {
        conv3d(randn({1, 2, 5, 5, 5}), randn({3, 2, 3, 3, 3}), {}, {1, 2});
      },
      {"conv3d: expected stride to have 1 or 3 values, got [1, 2]"});
}

TEST(ConvFunctional, ChannelsLastInputGivesChannelsLastOutput) {
  manual_seed(3);
  Tensor x = randn({2, 6, 9, 7});
  Tensor w = randn({8, 3, 3, 3});
  Tensor b = randn({8});
  Tensor ref = conv2d(x, w, b, 2, 1, 1, 2);
  Tensor xl = x.contiguous(MemoryFormat::ChannelsLast).requires_grad_(true);
  Tensor wr = w.clone().requires_grad_(true);
  Tensor y = conv2d(xl, wr, b, 2, 1, 1, 2);
  EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_FALSE(y.is_contiguous());
  expect_close(y, ref, 1e-5, 1e-5, "channels-last forward");
  // Gradients: the input's keeps channels-last; values equal the contiguous path's.
  Tensor cot = randn(y.sizes());
  (y * cot).sum().backward();
  Tensor xc = x.clone().requires_grad_(true);
  Tensor wc = w.clone().requires_grad_(true);
  (conv2d(xc, wc, b, 2, 1, 1, 2) * cot).sum().backward();
  EXPECT_TRUE(xl.grad().is_contiguous(MemoryFormat::ChannelsLast));
  expect_close(xl.grad(), xc.grad(), 1e-5, 1e-5, "channels-last d/dinput");
  expect_close(wr.grad(), wc.grad(), 1e-4, 1e-5, "channels-last d/dweight");

  // 3-D and transposed, and float64 through the direct loops.
  Tensor x3 = randn({1, 4, 4, 5, 3}, kDouble);
  Tensor w3 = randn({4, 3, 2, 2, 2}, kDouble);
  Tensor t3 = conv_transpose3d(x3.contiguous(MemoryFormat::ChannelsLast3d), w3, {}, 2, 0, 1);
  EXPECT_TRUE(t3.is_contiguous(MemoryFormat::ChannelsLast3d));
  expect_close(t3, conv_transpose3d(x3, w3, {}, 2, 0, 1), 1e-12, 1e-12, "channels-last 3d");
}

TEST(ConvFunctional, BFloat16MatchesFloat32WithinBFloat16Tolerance) {
  manual_seed(4);
  Tensor x = randn({2, 8, 10, 10}).to(kBFloat16);
  Tensor w = (randn({16, 8, 3, 3}) * 0.2).to(kBFloat16);
  Tensor b = randn({16}).to(kBFloat16);
  Tensor ref = conv2d(x.to(kFloat), w.to(kFloat), b.to(kFloat), 1, 1);
  Tensor y = conv2d(x, w, b, 1, 1);
  EXPECT_EQ(y.dtype(), kBFloat16);
  expect_close(y.to(kFloat), ref, 1.6e-2, 2e-2, "bf16 conv2d");
  Tensor yl = conv2d(x.contiguous(MemoryFormat::ChannelsLast), w, b, 1, 1);
  EXPECT_TRUE(yl.is_contiguous(MemoryFormat::ChannelsLast));
  expect_close(yl.to(kFloat), ref, 1.6e-2, 2e-2, "bf16 channels-last conv2d");
  // Backward runs in bf16 too.
  Tensor xr = x.clone().requires_grad_(true);
  Tensor wr = w.clone().requires_grad_(true);
  conv2d(xr, wr, b, 1, 1).sum().backward();
  Tensor xf = x.to(kFloat).requires_grad_(true);
  Tensor wf = w.to(kFloat).requires_grad_(true);
  conv2d(xf, wf, b.to(kFloat), 1, 1).sum().backward();
  EXPECT_EQ(xr.grad().dtype(), kBFloat16);
  expect_close(xr.grad().to(kFloat), xf.grad(), 2e-2, 5e-2, "bf16 d/dinput");
  expect_close(wr.grad().to(kFloat), wf.grad(), 2e-2, 5e-1, "bf16 d/dweight");
  // Transposed.
  Tensor t = conv_transpose2d(x, w.transpose(0, 1).contiguous(), {}, 2, 1, 1);
  expect_close(
      t.to(kFloat),
      conv_transpose2d(x.to(kFloat), w.to(kFloat).transpose(0, 1).contiguous(), {}, 2, 1, 1),
      1.6e-2, 2e-2, "bf16 conv_transpose2d");
}

TEST(ConvFunctional, EmptyInputsWithBackward) {
  // Empty batch: empty output, zero weight and bias gradients.
  Tensor x = randn({0, 3, 5, 5}).requires_grad_(true);
  Tensor w = randn({4, 3, 3, 3}).requires_grad_(true);
  Tensor b = randn({4}).requires_grad_(true);
  Tensor y = conv2d(x, w, b, 1, 1);
  EXPECT_EQ(conv_fn_shape(y), (Shape{0, 4, 5, 5}));
  y.sum().backward();
  EXPECT_EQ(conv_fn_shape(x.grad()), (Shape{0, 3, 5, 5}));
  EXPECT_TRUE(w.grad().equal(zeros({4, 3, 3, 3})));
  EXPECT_TRUE(b.grad().equal(zeros({4})));
  // No input channel: the output is the bias alone, and the input gets an empty gradient.
  Tensor x0 = randn({2, 0, 4}).requires_grad_(true);
  Tensor w0 = randn({3, 0, 2}).requires_grad_(true);
  Tensor b0 = randn({3}).requires_grad_(true);
  Tensor y0 = conv1d(x0, w0, b0);
  EXPECT_EQ(conv_fn_shape(y0), (Shape{2, 3, 3}));
  EXPECT_TRUE(y0.equal(b0.detach().view({1, 3, 1}).expand({2, 3, 3})));
  y0.sum().backward();
  expect_close(b0.grad(), full({3}, 6.0), 0, 0, "bias grad with no input channel");
  // Empty batch through a transposed convolution.
  Tensor xt = randn({0, 2, 3}).requires_grad_(true);
  Tensor wt = randn({2, 3, 3}).requires_grad_(true);
  Tensor yt = conv_transpose1d(xt, wt, {}, 2);
  EXPECT_EQ(conv_fn_shape(yt), (Shape{0, 3, 7}));
  yt.sum().backward();
  EXPECT_TRUE(wt.grad().equal(zeros({2, 3, 3})));
}

TEST(ConvFunctional, DoubleBackwardMatchesGradgradcheck) {
  manual_seed(5);
  auto opts = TensorOptions().dtype(kDouble).requires_grad(true);
  Tensor x = randn({2, 4, 5, 6}, opts);
  Tensor w = randn({6, 2, 3, 2}, opts);
  Tensor b = randn({6}, opts);
  auto fn = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{conv2d(in[0], in[1], in[2], {2, 1}, {1, 0}, {1, 2}, 2)};
  };
  EXPECT_TRUE(autograd::gradgradcheck(fn, {x, w, b}));
  Tensor xt = randn({1, 4, 3, 3}, opts);
  Tensor wt = randn({4, 1, 3, 3}, opts);
  auto fnt = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{conv_transpose2d(in[0], in[1], {}, 2, 1, 1, 2)};
  };
  EXPECT_TRUE(autograd::gradgradcheck(fnt, {xt, wt}));
}

TEST(ConvFunctional, Float64DirectLoopsAgreeWithOneDnnFloat32) {
  // A case larger than the golden ones: the float64 loops and oneDNN's float32 kernels agree.
  manual_seed(6);
  Tensor x = randn({3, 16, 17, 15}, kDouble);
  Tensor w = randn({24, 8, 3, 5}, kDouble) * 0.1;
  Tensor b = randn({24}, kDouble);
  Tensor y64 = conv2d(x, w, b, {2, 1}, {1, 2}, {2, 1}, 2);
  Tensor y32 = conv2d(x.to(kFloat), w.to(kFloat), b.to(kFloat), {2, 1}, {1, 2}, {2, 1}, 2);
  expect_close(y32, y64.to(kFloat), 1e-4, 1e-4, "float32 vs float64");
}

// The outputs and the weight and bias gradients of plain (NCHW) float32 inputs with 16+ channels,
// through both layouts each oneDNN primitive is asked for (kernels/cpu/conv_onednn.cpp): a 3x3
// kernel over an 8-wide output of 8 channels (channels-last forward and backward weights, a
// partial channel block), a 5x5 kernel over a 20-wide one of 16 channels (blocked forward output,
// channels-last backward weights) and a 3x3 kernel over a 16-wide one of 16 channels
// (channels-last forward, blocked backward weights), against the float64 loops, within float32
// rounding of Σ|x|·|w| and Σ|x|·|dy|.
TEST(ConvFunctional, OutputsAndWeightGradientsOfEveryLayoutMatchFloat64) {
  struct Case {
    Shape x, w;
    int64_t pad;
  };
  for (const Case& c :
       {Case{{4, 16, 8, 8}, {8, 16, 3, 3}, 1}, Case{{2, 16, 20, 20}, {16, 16, 5, 5}, 2},
        Case{{2, 16, 16, 16}, {16, 16, 3, 3}, 1}}) {
    manual_seed(11);
    const Tensor x = randn(c.x, kDouble), w0 = randn(c.w, kDouble), b0 = randn({c.w[0]}, kDouble);
    const Tensor w64 = w0.clone().set_requires_grad(true), b64 = b0.clone().set_requires_grad(true);
    const Tensor y64 = conv2d(x, w64, b64, {1, 1}, {c.pad, c.pad});
    const Tensor g = randn(y64.sizes(), kDouble);
    y64.backward(g);
    const Tensor w32 = w0.to(kFloat).set_requires_grad(true),
                 b32 = b0.to(kFloat).set_requires_grad(true);
    const Tensor y32 = conv2d(x.to(kFloat), w32, b32, {1, 1}, {c.pad, c.pad});
    y32.backward(g.to(kFloat));
    // The forward too, within float32 rounding of Σ|x|·|w| + |b|.
    const Tensor y_mag = conv2d(x.abs(), w0.abs(), b0.abs(), {1, 1}, {c.pad, c.pad});
    const Tensor y_bad = (y32.detach().to(kDouble) - y64.detach()).abs().gt(y_mag * (64 * 1.2e-7));
    EXPECT_EQ(y_bad.sum().item<int64_t>(), 0) << "x " << ::testing::PrintToString(c.x);
    // Σ|x|·|dy| per weight, the scale of the rounding: the weight gradient of |x| against |dy|.
    const Tensor wa = w0.clone().set_requires_grad(true);
    conv2d(x.abs(), wa, Tensor(), {1, 1}, {c.pad, c.pad}).backward(g.abs());
    const double eps = 1.2e-7;
    const Tensor w_bad =
        (w32.grad().to(kDouble) - w64.grad()).abs().gt(wa.grad() * (64 * eps) + 1e-30);
    EXPECT_EQ(w_bad.sum().item<int64_t>(), 0) << "x " << ::testing::PrintToString(c.x);
    const Tensor b_bad = (b32.grad().to(kDouble) - b64.grad())
                             .abs()
                             .gt(g.abs().sum(std::vector<int64_t>{0, 2, 3}) * (64 * eps));
    EXPECT_EQ(b_bad.sum().item<int64_t>(), 0) << "x " << ::testing::PrintToString(c.x);
  }
}

TEST(ConvFunctional, SingleInputChannelKernelMatchesFloat64) {
  // float32 convolutions with one input channel, stride 1 and no padding take the direct kernel
  // of kernels/cpu/conv_c1.h on AVX-512 CPUs (forward and weight gradient); the float64 loops
  // are the reference. Cases: LeNet's first layer, channels not a multiple of the kernel's
  // blocks, rows exactly 16 wide, kernel rows longer than one pass of taps, one output row,
  // a batch of one.
  struct Case {
    int64_t n, oc, h, w, kh, kw;
  };
  const Case cases[] = {{5, 32, 28, 28, 5, 5},
                        {3, 13, 20, 16, 3, 3},
                        {2, 7, 9, 33, 2, 7},
                        {1, 9, 4, 17, 4, 1},
                        {4, 3, 17, 40, 7, 9}};
  manual_seed(12);
  for (const Case& c : cases) {
    const std::string name = "n" + std::to_string(c.n) + " oc" + std::to_string(c.oc) + " " +
                             std::to_string(c.h) + "x" + std::to_string(c.w) + " k" +
                             std::to_string(c.kh) + "x" + std::to_string(c.kw);
    Tensor x = randn({c.n, 1, c.h, c.w}, kDouble);
    Tensor w = randn({c.oc, 1, c.kh, c.kw}, kDouble);
    Tensor b = randn({c.oc}, kDouble);
    Tensor gy = randn({c.n, c.oc, c.h - c.kh + 1, c.w - c.kw + 1}, kDouble);
    std::vector<Tensor> results[2];
    for (ScalarType dtype : {kDouble, kFloat}) {
      Tensor wd = w.detach().to(dtype).requires_grad_(true);
      Tensor bd = b.detach().to(dtype).requires_grad_(true);
      Tensor y = conv2d(x.to(dtype), wd, bd);
      y.backward(gy.to(dtype));
      results[dtype == kFloat].assign(
          {y.to(kDouble), wd.grad().to(kDouble), bd.grad().to(kDouble)});
    }
    const char* what[] = {"y", "grad w", "grad b"};
    for (int i = 0; i < 3; ++i) {
      // float32 rounding grows with the terms summed; the tolerance follows the largest value.
      const Tensor& ref = results[0][static_cast<size_t>(i)];
      const double scale = ref.abs().max().item<double>();
      expect_close(results[1][static_cast<size_t>(i)], ref, 1e-5, 1e-5 * scale,
                   name + " " + what[i]);
    }
  }
}

TEST(ConvFunctional, ConcurrentCallsShareTheCachedPrimitives) {
  // Threads running the same shapes share one cached primitive and use their own scratch
  // buffers: every thread's result equals the single-threaded one.
  manual_seed(9);
  Tensor x = randn({4, 8, 12, 12});
  Tensor w = randn({16, 8, 3, 3});
  Tensor b = randn({16});
  const Tensor ref = conv2d(x, w, b, 1, 1);
  const Tensor ref_t = conv_transpose2d(ref, w, {}, 1, 1);
  std::vector<Tensor> outs(4), outs_t(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < outs.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        outs[t] = conv2d(x, w, b, 1, 1);
        outs_t[t] = conv_transpose2d(outs[t], w, {}, 1, 1);
      }
    });
  for (std::thread& th : threads) th.join();
  for (size_t t = 0; t < outs.size(); ++t) {
    EXPECT_TRUE(outs[t].equal(ref)) << "thread " << t;
    EXPECT_TRUE(outs_t[t].equal(ref_t)) << "thread " << t;
  }
}

TEST(ConvFunctional, UnbatchedInputGivesUnbatchedOutput) {
  manual_seed(7);
  Tensor x = randn({3, 6, 6});
  Tensor w = randn({2, 3, 3, 3});
  Tensor y = conv2d(x, w, {}, 1, 1);
  EXPECT_EQ(conv_fn_shape(y), (Shape{2, 6, 6}));
  expect_close(y, conv2d(x.unsqueeze(0), w, {}, 1, 1).squeeze(0), 0, 0, "unbatched");
  EXPECT_TRUE(convolution(x.unsqueeze(0), w, {}, {1}, {1}, {1}, false, {0}, 1)
                  .equal(conv2d(x.unsqueeze(0), w, {}, 1, 1)));
}

}  // namespace
