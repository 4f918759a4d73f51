// The pool and batchnorm families on CUDA (kernels/cuda/pool_kernels.cu and batchnorm_kernels.cu)
// against the CPU kernels, through the public functions: forward values, max indices (exact), and
// input gradients, for every float dtype. Pooling: max (plain, dilated, ceil_mode, adaptive), avg
// (count_include_pad, divisor_override, adaptive), 1-d to 3-d, max_unpool forward and backward,
// fractional max pooling, double backward, channels-last and strided inputs, an empty batch, a
// grid past one wave, and the invalid-index error. Normalisation: batch norm (training and eval,
// running statistics, weight and bias gradients), instance norm, group norm, NCHW and
// channels-last, one element per channel-run (S = 1), sums split into chunks, an empty batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "src/dispatch/dispatch.h"
#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;

// A named namespace: test_cuda is a unity build, and the other files have helpers of the same
// names in their anonymous namespaces.
namespace cuda_pool_bn_test {
namespace {

const Device kGpu(kCUDA, 0);
const Device kHost(kCPU);

// Tolerances: float sums may be added in another order (atomics in max pooling's backward, the
// chunked reductions of batch norm), a 16-bit result may round the other way (one ulp of its own);
// the absolute part scales with the largest value.
Tol pb_tolerance(ScalarType t) {
  switch (t) {
    case kFloat:
      return {1e-5, 1e-5};
    case kDouble:
      return {1e-11, 1e-12};
    default:
      return tolerance_for(t);
  }
}

void expect_close(const Tensor& cpu, const Tensor& cuda, const std::string& what) {
  expect_close_scaled(cpu, cuda, what, pb_tolerance(cpu.dtype()));
}

std::string sizes_text(IntArrayRef s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

// Distinct values (a shuffled ramp in [-2, 2)): maxima are unique in float32/64; in 16-bit ties
// resolve the same way on both devices (first maximum in window order).
Tensor pool_input(IntArrayRef sizes, ScalarType t, uint64_t seed) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Generator gen(seed);
  Tensor v = randperm(n, gen).to(kDouble);
  if (n > 0) v = v * (4.0 / static_cast<double>(n)) - 2.0;
  return v.reshape(sizes).to(t);
}

Tensor grad_input(IntArrayRef sizes, ScalarType t, uint64_t seed) {
  Generator gen(seed);
  return randn(sizes, gen, TensorOptions().dtype(kDouble)).to(t);
}

// A pooling function: the output and (for max pooling) its indices, else an undefined tensor.
using PoolFn = std::function<std::tuple<Tensor, Tensor>(const Tensor&)>;

struct PoolResult {
  Tensor y, indices, dx;
};

PoolResult run_pool(const PoolFn& fn, const Tensor& x_cpu, std::optional<MemoryFormat> fmt,
                    bool transposed, Device dev) {
  Tensor x = x_cpu.to(dev);
  if (fmt) x = x.contiguous(*fmt);
  x = x.detach().requires_grad_();
  // A non-contiguous view: the kernels read through the strides.
  const Tensor in = transposed ? x.transpose(-1, -2) : x;
  auto [y, idx] = fn(in);
  const Tensor g = grad_input(y.sizes(), y.dtype(), 77).to(dev);
  const Tensor dx = autograd::grad({y}, {x}, {g})[0];
  return {y.detach(), idx, dx};
}

// fn on CPU and CUDA for every float dtype: values, indices and the input gradient agree.
void check_pool(const std::string& name, const PoolFn& fn, IntArrayRef sizes,
                std::optional<MemoryFormat> fmt = std::nullopt, bool transposed = false) {
  for (ScalarType t : float_dtypes()) {
    const std::string what = name + " " + sizes_text(sizes) + (fmt ? " channels-last" : "") +
                             (transposed ? " transposed" : "") + " " + to_string(t);
    SCOPED_TRACE(what);
    const Tensor x = pool_input(sizes, t, 5);
    const PoolResult want = run_pool(fn, x, fmt, transposed, kHost);
    const PoolResult got = run_pool(fn, x, fmt, transposed, kGpu);
    expect_close(want.y, got.y, what + " y");
    expect_close(want.indices, got.indices, what + " indices");
    expect_close(want.dx, got.dx, what + " dx");
    if (fmt && !transposed) {
      EXPECT_TRUE(got.y.is_contiguous(*fmt)) << what << ": the output lost channels-last";
    }
  }
}

PoolFn no_indices(std::function<Tensor(const Tensor&)> f) {
  return [f](const Tensor& x) { return std::make_tuple(f(x), Tensor()); };
}

}  // namespace

TEST(CudaPoolBatchNorm, EveryFloatDtypeHasAKernelOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    EXPECT_TRUE(supports(OpId::max_pool, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::avg_pool, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::avg_pool_backward, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::pool_scatter, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::pool_gather, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::fractional_max_pool, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::batch_norm_stats, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::batch_norm_reduce, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::batch_norm_apply, kCUDA, t)) << t;
  }
  EXPECT_FALSE(supports(OpId::max_pool, kCUDA, kLong));
  EXPECT_FALSE(supports(OpId::batch_norm_stats, kCUDA, kInt));
}

TEST(CudaPoolBatchNorm, MaxPoolMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  check_pool("max_pool1d", [](const Tensor& x) { return max_pool1d_with_indices(x, 3, 2, 1); },
             {2, 3, 17});
  // Dilation, padding, uneven strides, ceil_mode (a last window hanging over the edge).
  const PoolFn p2 = [](const Tensor& x) {
    return max_pool2d_with_indices(x, {3, 2}, {2, 1}, {1, 1}, {1, 2}, /*ceil_mode=*/true);
  };
  check_pool("max_pool2d", p2, {2, 5, 9, 11});
  check_pool("max_pool2d", p2, {2, 5, 9, 11}, MemoryFormat::ChannelsLast);
  check_pool("max_pool2d", p2, {2, 5, 11, 9}, std::nullopt, /*transposed=*/true);
  check_pool("max_pool2d overlapping",
             [](const Tensor& x) {
               return max_pool2d_with_indices(x, {3, 3}, {1, 1}, {1, 1});
             },
             {3, 4, 8, 7});
  const PoolFn p3 = [](const Tensor& x) {
    return max_pool3d_with_indices(x, {2, 3, 2}, {1, 2, 2}, {1, 1, 0}, {2, 1, 1}, true);
  };
  check_pool("max_pool3d", p3, {2, 3, 6, 7, 5});
  check_pool("max_pool3d", p3, {2, 3, 6, 7, 5}, MemoryFormat::ChannelsLast3d);
  // Inference without indices (the kernel's null index pointer).
  for (ScalarType t : float_dtypes()) {
    const Tensor x = pool_input({2, 3, 10, 10}, t, 8);
    expect_close(max_pool2d(x, {2, 2}), max_pool2d(on_cuda(x), {2, 2}),
                 std::string("max_pool2d no indices ") + to_string(t));
  }
}

TEST(CudaPoolBatchNorm, AvgPoolMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  check_pool("avg_pool1d", no_indices([](const Tensor& x) { return avg_pool1d(x, 4, 3, 2, true); }),
             {2, 3, 19});
  for (bool include_pad : {true, false}) {
    const PoolFn p2 = no_indices([include_pad](const Tensor& x) {
      return avg_pool2d(x, {3, 2}, {2, 2}, {1, 1}, /*ceil_mode=*/true, include_pad);
    });
    const std::string name = include_pad ? "avg_pool2d include_pad" : "avg_pool2d exclude_pad";
    check_pool(name, p2, {2, 5, 9, 8});
    check_pool(name, p2, {2, 5, 9, 8}, MemoryFormat::ChannelsLast);
    check_pool(name, p2, {2, 5, 8, 9}, std::nullopt, /*transposed=*/true);
  }
  check_pool("avg_pool2d divisor_override", no_indices([](const Tensor& x) {
               return avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, true, 5);
             }),
             {3, 2, 7, 7});
  const PoolFn p3 = no_indices([](const Tensor& x) {
    return avg_pool3d(x, {2, 3, 3}, {2, 1, 2}, {1, 1, 1}, true, false);
  });
  check_pool("avg_pool3d", p3, {2, 3, 5, 6, 7});
  check_pool("avg_pool3d", p3, {2, 3, 5, 6, 7}, MemoryFormat::ChannelsLast3d);
}

TEST(CudaPoolBatchNorm, AdaptivePoolingMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // Shrinking and growing windows (out > in: windows overlap and repeat inputs).
  check_pool("adaptive_avg_pool1d",
             no_indices([](const Tensor& x) { return adaptive_avg_pool1d(x, {5}); }), {2, 3, 13});
  check_pool("adaptive_avg_pool2d", no_indices([](const Tensor& x) {
               return adaptive_avg_pool2d(x, {3, 7});
             }),
             {2, 4, 10, 5});
  check_pool("adaptive_avg_pool2d", no_indices([](const Tensor& x) {
               return adaptive_avg_pool2d(x, {3, 7});
             }),
             {2, 4, 10, 5}, MemoryFormat::ChannelsLast);
  check_pool("adaptive_avg_pool3d", no_indices([](const Tensor& x) {
               return adaptive_avg_pool3d(x, {2, 3, 4});
             }),
             {2, 3, 5, 7, 3});
  check_pool("adaptive_max_pool1d", [](const Tensor& x) { return adaptive_max_pool1d(x, {4}); },
             {2, 3, 11});
  check_pool("adaptive_max_pool2d",
             [](const Tensor& x) {
               return adaptive_max_pool2d(x, {4, 6});
             },
             {2, 3, 9, 5});
  check_pool(
      "adaptive_max_pool2d",
      [](const Tensor& x) {
        return adaptive_max_pool2d(x, {4, 6});
      },
      {2, 3, 9, 5}, MemoryFormat::ChannelsLast);
  check_pool("adaptive_max_pool3d",
             [](const Tensor& x) {
               return adaptive_max_pool3d(x, {3, 2, 5});
             },
             {1, 2, 4, 6, 7});
}

// max_unpool's forward is pool_scatter with assign, its backward pool_gather.
TEST(CudaPoolBatchNorm, MaxUnpoolMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    const std::string what = std::string("max_unpool2d ") + to_string(t);
    const Tensor x = pool_input({2, 3, 8, 10}, t, 11);
    auto [v, idx] = max_pool2d_with_indices(x, {2, 2});
    auto run = [&](Device dev) {
      Tensor src = v.to(dev).detach().requires_grad_();
      Tensor y = max_unpool2d(src, idx.to(dev), {8, 10});
      Tensor g = grad_input(y.sizes(), t, 3).to(dev);
      return std::make_pair(y.detach(), autograd::grad({y}, {src}, {g})[0]);
    };
    auto [y_cpu, d_cpu] = run(kHost);
    auto [y_gpu, d_gpu] = run(kGpu);
    expect_close(y_cpu, y_gpu, what + " y");
    expect_close(d_cpu, d_gpu, what + " d src");
  }
  const Tensor x3 = pool_input({1, 2, 4, 6, 6}, kFloat, 12);
  auto [v3, i3] = max_pool3d_with_indices(x3, {2, 2, 2});
  expect_close(max_unpool3d(v3, i3, {4, 6, 6}, {2, 2, 2}, {0, 0, 0}),
               max_unpool3d(on_cuda(v3), on_cuda(i3), {4, 6, 6}, {2, 2, 2}, {0, 0, 0}),
               "max_unpool3d");
}

TEST(CudaPoolBatchNorm, InvalidUnpoolIndexThrowsOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor v = on_cuda(ones({1, 1, 2, 2}));
  const Tensor bad =
      on_cuda(tensor({0, 1, 2, 99}, TensorOptions().dtype(kLong)).view({1, 1, 2, 2}));
  try {
    (void)max_unpool2d(v, bad, {4, 4});
    ADD_FAILURE() << "an index outside the output must throw";
  } catch (const IndexError& e) {
    EXPECT_TRUE(contains(e.what(), "invalid max index: 99")) << e.what();
  }
  const Tensor negative =
      on_cuda(tensor({0, -3, 2, 3}, TensorOptions().dtype(kLong)).view({1, 1, 2, 2}));
  EXPECT_THROW((void)max_unpool2d(v, negative, {4, 4}), IndexError);
  // The device stays usable, and valid indices still work after the failed calls.
  const Tensor good =
      on_cuda(tensor({0, 5, 10, 15}, TensorOptions().dtype(kLong)).view({1, 1, 2, 2}));
  EXPECT_EQ(max_unpool2d(v, good, {4, 4}).sum().item<double>(), 4.0);
}

TEST(CudaPoolBatchNorm, FractionalMaxPoolMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Generator gen(21);
  // Drawn in float64 and scaled below 1, so rounding to a 16-bit dtype cannot reach 1.0; each
  // run rounds them to the input's dtype, as the samples must have it.
  const Tensor s2 = rand({2, 3, 2}, gen, TensorOptions().dtype(kDouble)) * 0.9;
  const Tensor s3 = rand({2, 3, 3}, gen, TensorOptions().dtype(kDouble)) * 0.9;
  const PoolFn f2 = [s2](const Tensor& x) {
    return fractional_max_pool2d(x, {2, 3}, {5, 4}, s2.to(x.dtype()).to(x.device()));
  };
  check_pool("fractional_max_pool2d", f2, {2, 3, 11, 9});
  check_pool("fractional_max_pool2d", f2, {2, 3, 11, 9}, MemoryFormat::ChannelsLast);
  check_pool(
      "fractional_max_pool3d",
      [s3](const Tensor& x) {
        return fractional_max_pool3d(x, {2, 2, 3}, {3, 4, 2}, s3.to(x.dtype()).to(x.device()));
      },
      {2, 3, 6, 7, 8});
}

// Second derivatives with respect to the incoming gradient: avg_pool's backward differentiates
// into avg_pool, max pooling's (a scatter) into a gather.
TEST(CudaPoolBatchNorm, DoubleBackwardMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor x0 = pool_input({2, 3, 7, 6}, kDouble, 31);
  auto second = [&](Device dev, bool max) {
    Tensor x = x0.to(dev).requires_grad_();
    Tensor y = max ? max_pool2d(x, {3, 3}, {2, 2}, {1, 1}) : avg_pool2d(x, {3, 2}, {2, 1}, {1, 1});
    Tensor gy = grad_input(y.sizes(), kDouble, 4).to(dev).requires_grad_();
    Tensor dx = autograd::grad({y}, {x}, {gy}, true, /*create_graph=*/true)[0];
    Tensor v = grad_input(dx.sizes(), kDouble, 6).to(dev);
    Tensor ggy = autograd::grad({(dx * v).sum()}, {gy})[0];
    return std::make_pair(dx.detach(), ggy);
  };
  for (bool max : {false, true}) {
    const std::string what = max ? "max_pool2d" : "avg_pool2d";
    auto want = second(kHost, max);
    auto got = second(kGpu, max);
    expect_close(want.first, got.first, what + " dx");
    expect_close(want.second, got.second, what + " d(v . dx)/d(grad)");
  }
}

TEST(CudaPoolBatchNorm, EmptyBatchAndLargeGridPooling) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const PoolFn mp = [](const Tensor& x) { return max_pool2d_with_indices(x, {2, 2}); };
  const PoolFn ap = no_indices([](const Tensor& x) {
    return avg_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  });
  check_pool("max_pool2d empty", mp, {0, 3, 6, 6});
  check_pool("avg_pool2d empty", ap, {0, 3, 6, 6});
  // More elements than one wave of threads: the grid-stride loops take several trips.
  for (ScalarType t : {kFloat, kHalf}) {
    const Tensor x = pool_input({4, 32, 96, 96}, t, 41);
    auto [y_cpu, i_cpu] = max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1});
    auto [y_gpu, i_gpu] = max_pool2d_with_indices(on_cuda(x), {3, 3}, {2, 2}, {1, 1});
    expect_close(y_cpu, y_gpu, std::string("large max_pool2d ") + to_string(t));
    expect_close(i_cpu, i_gpu, std::string("large max_pool2d indices ") + to_string(t));
    expect_close(avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}),
                 avg_pool2d(on_cuda(x), {3, 3}, {2, 2}, {1, 1}),
                 std::string("large avg_pool2d ") + to_string(t));
  }
}

// ---- batch, instance and group normalisation ----

namespace {

enum class NormKind { kBatchTrain, kBatchEval, kInstance, kGroup };

const char* norm_name(NormKind k) {
  switch (k) {
    case NormKind::kBatchTrain:
      return "batch_norm train";
    case NormKind::kBatchEval:
      return "batch_norm eval";
    case NormKind::kInstance:
      return "instance_norm";
    default:
      return "group_norm";
  }
}

struct NormRun {
  Tensor y, dx, dw, db, running_mean, running_var;
};

NormRun run_norm(NormKind kind, const Tensor& x_cpu, std::optional<MemoryFormat> fmt, bool affine,
                 Device dev) {
  const int64_t C = x_cpu.size(1);
  const ScalarType t = x_cpu.dtype();
  Generator gen(13);
  const auto dopts = TensorOptions().dtype(kDouble);
  Tensor x = x_cpu.to(dev);
  if (fmt) x = x.contiguous(*fmt);
  x = x.detach().requires_grad_();
  Tensor w, b;
  if (affine) {
    w = (randn({C}, gen, dopts) + 1).to(t).to(dev).requires_grad_();
    b = randn({C}, gen, dopts).to(t).to(dev).requires_grad_();
  }
  Tensor rm = (randn({C}, gen, dopts) * 0.1).to(t).to(dev);
  Tensor rv = (rand({C}, gen, dopts) + 0.5).to(t).to(dev);
  Tensor y;
  switch (kind) {
    case NormKind::kBatchTrain:
      y = batch_norm(x, w, b, rm, rv, /*training=*/true, 0.1, 1e-5);
      break;
    case NormKind::kBatchEval:
      y = batch_norm(x, w, b, rm, rv, /*training=*/false, 0.1, 1e-5);
      break;
    case NormKind::kInstance:
      y = instance_norm(x, w, b, rm, rv, /*use_input_stats=*/true, 0.1, 1e-5);
      break;
    case NormKind::kGroup:
      y = group_norm(x, C >= 2 && C % 2 == 0 ? 2 : 1, w, b, 1e-5);
      break;
  }
  std::vector<Tensor> wrt = {x};
  if (affine) {
    wrt.push_back(w);
    wrt.push_back(b);
  }
  const Tensor g = grad_input(y.sizes(), t, 17).to(dev);
  auto grads = autograd::grad({y}, wrt, {g});
  NormRun r{y.detach(), grads[0], Tensor(), Tensor(), rm, rv};
  if (affine) {
    r.dw = grads[1];
    r.db = grads[2];
  }
  return r;
}

void check_norm(NormKind kind, IntArrayRef sizes, std::optional<MemoryFormat> fmt = std::nullopt) {
  for (ScalarType t : float_dtypes()) {
    for (bool affine : {true, false}) {
      const std::string what = std::string(norm_name(kind)) + " " + sizes_text(sizes) +
                               (fmt ? " channels-last" : "") + (affine ? " affine " : " plain ") +
                               to_string(t);
      SCOPED_TRACE(what);
      Generator gen(3);
      const Tensor x = (randn(sizes, gen, TensorOptions().dtype(kDouble)) * 2 + 0.5).to(t);
      const NormRun want = run_norm(kind, x, fmt, affine, kHost);
      const NormRun got = run_norm(kind, x, fmt, affine, kGpu);
      expect_close(want.y, got.y, what + " y");
      expect_close(want.dx, got.dx, what + " dx");
      expect_close(want.dw, got.dw, what + " dw");
      expect_close(want.db, got.db, what + " db");
      expect_close(want.running_mean, got.running_mean, what + " running_mean");
      expect_close(want.running_var, got.running_var, what + " running_var");
      if (fmt && x.numel() > 0 && kind != NormKind::kGroup) {
        EXPECT_TRUE(got.y.is_contiguous(*fmt)) << what << ": the output lost channels-last";
      }
    }
  }
}

}  // namespace

TEST(CudaPoolBatchNorm, BatchNormMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (NormKind k : {NormKind::kBatchTrain, NormKind::kBatchEval}) {
    check_norm(k, {4, 3, 5, 7});
    check_norm(k, {4, 3, 5, 7}, MemoryFormat::ChannelsLast);
    check_norm(k, {2, 3, 4, 5, 3}, MemoryFormat::ChannelsLast3d);
    check_norm(k, {37, 10});  // S = 1: a channel's elements are N single-element runs
  }
  // More channels than one channels-last tile (33 = 32 + 1), and S below a block's 256 threads
  // with several runs per trip.
  check_norm(NormKind::kBatchTrain, {3, 33, 3, 5}, MemoryFormat::ChannelsLast);
  check_norm(NormKind::kBatchTrain, {50, 4, 7});
}

TEST(CudaPoolBatchNorm, InstanceAndGroupNormMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  check_norm(NormKind::kInstance, {3, 4, 6, 5});
  check_norm(NormKind::kInstance, {3, 4, 6, 5}, MemoryFormat::ChannelsLast);
  check_norm(NormKind::kInstance, {2, 35, 3, 3}, MemoryFormat::ChannelsLast);
  check_norm(NormKind::kInstance, {2, 3, 17});
  check_norm(NormKind::kGroup, {3, 6, 5, 4});
  check_norm(NormKind::kGroup, {2, 4, 9});
}

// Sums long enough to be cut into chunks (one slot's elements over several blocks, then combined).
TEST(CudaPoolBatchNorm, ChunkedNormSumsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble, kBFloat16}) {
    for (bool cl : {false, true}) {
      const std::string what =
          std::string("batch_norm large ") + (cl ? "channels-last " : "") + to_string(t);
      SCOPED_TRACE(what);
      Generator gen(5);
      const Tensor x = (randn({16, 8, 64, 64}, gen, TensorOptions().dtype(kDouble)) + 3).to(t);
      const std::optional<MemoryFormat> fmt =
          cl ? std::optional<MemoryFormat>(MemoryFormat::ChannelsLast) : std::nullopt;
      const NormRun want = run_norm(NormKind::kBatchTrain, x, fmt, true, kHost);
      const NormRun got = run_norm(NormKind::kBatchTrain, x, fmt, true, kGpu);
      expect_close(want.y, got.y, what + " y");
      expect_close(want.dx, got.dx, what + " dx");
      expect_close(want.dw, got.dw, what + " dw");
      expect_close(want.db, got.db, what + " db");
      expect_close(want.running_var, got.running_var, what + " running_var");
    }
  }
}

TEST(CudaPoolBatchNorm, EmptyBatchNorm) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  check_norm(NormKind::kBatchTrain, {0, 3, 4});
  check_norm(NormKind::kBatchEval, {0, 3, 4, 4}, MemoryFormat::ChannelsLast);
  check_norm(NormKind::kInstance, {0, 3, 4});
  check_norm(NormKind::kGroup, {0, 4, 5});
}

TEST(CudaPoolBatchNorm, BatchNormDoubleBackwardMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Generator gen(8);
  const auto dopts = TensorOptions().dtype(kDouble);
  const Tensor x0 = randn({4, 3, 5}, gen, dopts), w0 = randn({3}, gen, dopts),
               g = randn({4, 3, 5}, gen, dopts);
  auto second = [&](Device dev) {
    Tensor x = x0.to(dev).requires_grad_(), w = w0.to(dev).requires_grad_();
    Tensor y = batch_norm(x, w, Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
    Tensor dx = autograd::grad({(y * g.to(dev)).sum()}, {x}, {}, true, true)[0];
    return autograd::grad({dx.square().sum()}, {x, w});
  };
  auto want = second(kHost);
  auto got = second(kGpu);
  expect_close(want[0], got[0], "d2/dx2");
  expect_close(want[1], got[1], "d2/dxdw");
}

}  // namespace cuda_pool_bn_test
