// Batch / instance / group norm beyond the golden table: channels-last inputs (kept
// channels-last, same numbers as contiguous), bfloat16, zero-size batches with backward, double
// backward (create_graph), and ember::native_batch_norm's saved statistics.
#include <gtest/gtest.h>

#include "ember/ops/nn_batchnorm.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

// y and the gradients of sum(y·cot) w.r.t. x, w, b for a normalisation `fn(x, w, b)`.
struct BnRun {
  Tensor y, dx, dw, db;
};

template <class Fn>
BnRun bn_run(const Fn& fn, const Tensor& x0, const Tensor& w0, const Tensor& b0,
             const Tensor& cot) {
  Tensor x = x0.detach().clone(MemoryFormat::Preserve).requires_grad_(true);
  Tensor w = w0.detach().clone().requires_grad_(true);
  Tensor b = b0.detach().clone().requires_grad_(true);
  Tensor y = fn(x, w, b);
  (y * cot).sum().backward();
  return {y, x.grad(), w.grad(), b.grad()};
}

void expect_runs_close(const BnRun& a, const BnRun& b, double rtol, double atol) {
  EXPECT_TRUE(allclose(a.y, b.y, rtol, atol));
  EXPECT_TRUE(allclose(a.dx, b.dx, rtol, atol));
  EXPECT_TRUE(allclose(a.dw, b.dw, rtol, atol));
  EXPECT_TRUE(allclose(a.db, b.db, rtol, atol));
}

TEST(BatchNormLayout, ChannelsLastIsKeptAndMatchesContiguous) {
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "eval");
    Tensor x = randn({3, 5, 4, 6}) * 2 + 1;
    Tensor w = rand({5}) + 0.5, b = randn({5}), cot = randn({3, 5, 4, 6});
    Tensor rm1 = randn({5}), rv1 = rand({5}) + 0.5;
    Tensor rm2 = rm1.clone(), rv2 = rv1.clone();
    auto bn = [&](const Tensor& rm, const Tensor& rv) {
      return [&, rm, rv](const Tensor& xx, const Tensor& ww, const Tensor& bb) {
        return ember::batch_norm(xx, ww, bb, rm, rv, training, 0.1, 1e-5);
      };
    };
    BnRun ref = bn_run(bn(rm1, rv1), x, w, b, cot);
    Tensor xcl = x.contiguous(MemoryFormat::ChannelsLast);
    BnRun cl = bn_run(bn(rm2, rv2), xcl, w, b, cot.contiguous(MemoryFormat::ChannelsLast));
    EXPECT_TRUE(cl.y.is_contiguous(MemoryFormat::ChannelsLast));
    EXPECT_TRUE(cl.dx.is_contiguous(MemoryFormat::ChannelsLast));
    expect_runs_close(cl, ref, 1e-5, 1e-5);
    EXPECT_TRUE(allclose(rm1, rm2, 1e-6, 1e-7));
    EXPECT_TRUE(allclose(rv1, rv2, 1e-6, 1e-7));
  }
}

TEST(BatchNormLayout, ChannelsLast3dAndInstanceNorm) {
  Tensor x = randn({2, 3, 2, 3, 4}) + 2;
  Tensor w = rand({3}) + 0.5, b = randn({3}), cot = randn({2, 3, 2, 3, 4});
  auto in = [](const Tensor& xx, const Tensor& ww, const Tensor& bb) {
    return ember::instance_norm(xx, ww, bb, Tensor(), Tensor(), true, 0.1, 1e-5);
  };
  BnRun ref = bn_run(in, x, w, b, cot);
  BnRun cl = bn_run(in, x.contiguous(MemoryFormat::ChannelsLast3d), w, b, cot);
  EXPECT_TRUE(cl.y.is_contiguous(MemoryFormat::ChannelsLast3d));
  expect_runs_close(cl, ref, 1e-5, 1e-5);
  // Group norm accepts channels-last input too (computed on a contiguous copy).
  auto gn = [](const Tensor& xx, const Tensor& ww, const Tensor& bb) {
    return ember::group_norm(xx, 3, ww, bb, 1e-5);
  };
  expect_runs_close(bn_run(gn, x.contiguous(MemoryFormat::ChannelsLast3d), w, b, cot),
                    bn_run(gn, x, w, b, cot), 1e-5, 1e-5);
}

TEST(BatchNormLayout, StridedInputIsAccepted) {
  Tensor base = randn({4, 6, 5}) + 1;
  Tensor x = base.transpose(1, 2);  // [4, 5, 6], neither contiguous nor channels-last
  Tensor w = rand({5}) + 0.5, b = randn({5}), cot = randn({4, 5, 6});
  auto bn = [](const Tensor& xx, const Tensor& ww, const Tensor& bb) {
    return ember::batch_norm(xx, ww, bb, Tensor(), Tensor(), true, 0.1, 1e-5);
  };
  expect_runs_close(bn_run(bn, x, w, b, cot), bn_run(bn, x.contiguous(), w, b, cot), 1e-6, 1e-6);
}

TEST(BatchNormLayout, BFloat16MatchesFloat32) {
  nn::BatchNorm2d bn(4);
  bn->to(kBFloat16);
  Tensor x = (randn({3, 4, 5, 5}) * 2 + 1).to(kBFloat16);
  Tensor xg = x.detach().clone().requires_grad_(true);
  Tensor y = bn(xg);
  EXPECT_EQ(y.dtype(), kBFloat16);
  EXPECT_EQ(bn->running_mean.dtype(), kBFloat16);
  y.to(kFloat).square().sum().backward();
  ASSERT_TRUE(xg.grad().defined());
  EXPECT_EQ(xg.grad().dtype(), kBFloat16);
  EXPECT_EQ(bn->weight.grad().dtype(), kBFloat16);
  // The same computation in float32 from the same bf16 values.
  Tensor xf = x.to(kFloat).requires_grad_(true);
  Tensor yf = ember::batch_norm(xf, ones({4}).requires_grad_(true), zeros({4}), Tensor(), Tensor(),
                                true, 0.1, 1e-5);
  yf.square().sum().backward();
  EXPECT_TRUE(allclose(y.to(kFloat), yf, 2e-2, 2e-2));
  EXPECT_TRUE(allclose(xg.grad().to(kFloat), xf.grad(), 5e-2, 5e-2));
  // Channels-last bf16.
  Tensor ycl = bn(x.contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(ycl.is_contiguous(MemoryFormat::ChannelsLast));
  // bf16 input with float32 parameters (mixed precision) also works.
  nn::BatchNorm2d bn32(4);
  EXPECT_EQ(bn32(x).dtype(), kBFloat16);
  EXPECT_TRUE(allclose(bn32(x).to(kFloat), yf, 2e-2, 2e-2));
}

TEST(BatchNormLayout, ZeroSizeBatchWithBackward) {
  nn::BatchNorm2d bn(3);
  Tensor x = randn({0, 3, 4, 4}).requires_grad_(true);
  Tensor y = bn(x);
  EXPECT_EQ(y.sizes(), IntArrayRef({0, 3, 4, 4}));
  y.sum().backward();
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 3, 4, 4}));
  EXPECT_TRUE(equal(bn->weight.grad(), zeros({3})));
  EXPECT_TRUE(equal(bn->bias.grad(), zeros({3})));
  EXPECT_TRUE(equal(bn->running_mean, zeros({3})));  // an empty batch leaves the stats alone
  EXPECT_TRUE(equal(bn->running_var, ones({3})));
  for (auto* name : {"group_norm", "instance_norm"}) {
    SCOPED_TRACE(name);
    Tensor z = randn({0, 4, 3}).requires_grad_(true);
    Tensor w = ones({4}).requires_grad_(true);
    Tensor out = std::string(name) == "group_norm"
                     ? ember::group_norm(z, 2, w, Tensor(), 1e-5)
                     : ember::instance_norm(z, w, Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
    EXPECT_EQ(out.sizes(), IntArrayRef({0, 4, 3}));
    out.sum().backward();
    EXPECT_EQ(z.grad().sizes(), IntArrayRef({0, 4, 3}));
    EXPECT_TRUE(equal(w.grad(), zeros({4})));
  }
}

TEST(BatchNormLayout, DoubleBackward) {
  Tensor x = (randn({3, 2, 4}, kDouble) + 1).requires_grad_(true);
  Tensor w = (rand({2}, kDouble) + 0.5).requires_grad_(true);
  Tensor b = randn({2}, kDouble).requires_grad_(true);
  Tensor rm = randn({2}, kDouble), rv = rand({2}, kDouble) + 0.5;
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "eval");
    auto fn = [&](const autograd::variable_list& v) {
      return autograd::variable_list{
          ember::batch_norm(v[0], v[1], v[2], rm.clone(), rv.clone(), training, 0.1, 1e-5)};
    };
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x, w, b}));
  }
  auto in = [&](const autograd::variable_list& v) {
    return autograd::variable_list{
        ember::instance_norm(v[0], v[1], v[2], Tensor(), Tensor(), true, 0.1, 1e-5)};
  };
  EXPECT_TRUE(autograd::gradgradcheck(in, {x, w, b}));
  Tensor xg = (randn({2, 4, 3}, kDouble) + 1).requires_grad_(true);
  Tensor wg = (rand({4}, kDouble) + 0.5).requires_grad_(true);
  Tensor bg = randn({4}, kDouble).requires_grad_(true);
  auto gn = [&](const autograd::variable_list& v) {
    return autograd::variable_list{ember::group_norm(v[0], 2, v[1], v[2], 1e-5)};
  };
  EXPECT_TRUE(autograd::gradcheck(gn, {xg, wg, bg}));
  EXPECT_TRUE(autograd::gradgradcheck(gn, {xg, wg, bg}));
}

// Large enough that the kernels split the work over threads (chunks of 32k elements).
TEST(BatchNormLayout, LargeInputsMatchTheComposition) {
  Tensor x = randn({8, 16, 48, 40}) * 2 + 3;
  Tensor w = rand({16}) + 0.5, b = randn({16}), cot = randn({8, 16, 48, 40});
  auto bn = [](const Tensor& xx, const Tensor& ww, const Tensor& bb) {
    return ember::batch_norm(xx, ww, bb, Tensor(), Tensor(), true, 0.1, 1e-5);
  };
  BnRun run = bn_run(bn, x, w, b, cot);
  const Tensor xd = x.to(kDouble), gd = cot.to(kDouble);
  auto [var, mean] = var_mean(xd, IntArrayRef({0, 2, 3}), /*unbiased=*/false, /*keepdim=*/true);
  const Tensor xhat = (xd - mean) * rsqrt(var + 1e-5);
  const Tensor y = xhat * w.to(kDouble).view({1, 16, 1, 1}) + b.to(kDouble).view({1, 16, 1, 1});
  EXPECT_TRUE(allclose(run.y, y.to(kFloat), 1e-5, 1e-5));
  EXPECT_TRUE(allclose(run.db, gd.sum({0, 2, 3}).to(kFloat), 1e-5, 1e-3));
  EXPECT_TRUE(allclose(run.dw, (gd * xhat).sum({0, 2, 3}).to(kFloat), 1e-5, 1e-3));
  BnRun cl = bn_run(bn, x.contiguous(MemoryFormat::ChannelsLast), w, b, cot);
  expect_runs_close(cl, run, 1e-5, 1e-4);
  // Instance and group norm over the same input, both layouts.
  auto in = [](const Tensor& xx, const Tensor& ww, const Tensor& bb) {
    return ember::instance_norm(xx, ww, bb, Tensor(), Tensor(), true, 0.1, 1e-5);
  };
  expect_runs_close(bn_run(in, x.contiguous(MemoryFormat::ChannelsLast), w, b, cot),
                    bn_run(in, x, w, b, cot), 1e-5, 1e-4);
  auto [ivar, imean] = var_mean(xd, IntArrayRef({2, 3}), /*unbiased=*/false, /*keepdim=*/true);
  const Tensor iy = (xd - imean) * rsqrt(ivar + 1e-5) * w.to(kDouble).view({1, 16, 1, 1}) +
                    b.to(kDouble).view({1, 16, 1, 1});
  EXPECT_TRUE(allclose(bn_run(in, x, w, b, cot).y, iy.to(kFloat), 1e-5, 1e-5));
}

TEST(BatchNormLayout, NativeBatchNormSavesStatistics) {
  Tensor x = randn({4, 3, 5}) * 2 + 1;
  auto [y, mean, invstd] =
      ember::native_batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  const Tensor xd = x.to(kDouble).transpose(0, 1).reshape({3, -1});
  EXPECT_TRUE(allclose(mean, xd.mean({1}).to(kFloat), 1e-6, 1e-6));
  EXPECT_TRUE(allclose(invstd, (xd.var({1}, false) + 1e-5).rsqrt().to(kFloat), 1e-5, 1e-6));
  EXPECT_TRUE(
      equal(y, ember::batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5)));
  auto [y2, m2, s2] =
      ember::native_batch_norm(x, Tensor(), Tensor(), zeros({3}), ones({3}), false, 0.1, 1e-5);
  EXPECT_EQ(m2.numel(), 0);
  EXPECT_EQ(s2.numel(), 0);
  EXPECT_TRUE(allclose(y2, x / std::sqrt(1 + 1e-5), 1e-6, 1e-6));
}

}  // namespace
