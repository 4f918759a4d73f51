// layer_norm and rms_norm on CUDA (kernels/cuda/norm_kernels.cu, reached through the
// `layer_norm` / `layer_norm_backward` slots) against the CPU kernels: forward, and the gradients
// of x, weight and bias, for every float dtype, with and without the affine parameters. The
// shapes reach each launch path: a warp per row (d <= 1024), a block of 256 and of 512 threads
// (a row longer than one block), more rows than one wave of either (grid-stride loops), column
// sums split across row slices (many rows, few columns), and empty inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ember/nn/functional/normalization.h"
#include "src/dispatch/dispatch.h"
#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;
namespace F = ember::nn::functional;

namespace {

struct NormCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> normalized;
};

// d = 40 (a warp a row), d = 2000 (256 threads), d = 5000 (512 threads, ~10 elements a
// thread), d = 40000 (more column tiles than one wave: the dw/db kernel loops over tiles), 20000
// rows of 16 (warp kernel past one wave), 1500 rows of 1100 (block kernel past one wave), 1000
// rows of 48 (dw/db summed in row slices, then combined).
const std::vector<NormCase> kNormCases = {
    {{6, 4, 10}, {4, 10}}, {{3, 2000}, {2000}},    {{2, 5000}, {5000}}, {{2, 40000}, {40000}},
    {{20000, 16}, {16}},   {{1500, 1100}, {1100}}, {{1000, 48}, {48}},
};

struct NormResult {
  Tensor y, dx, dw, db;
};

// The same values on either device: drawn in float64 on the CPU, rounded to dtype there.
struct NormInputs {
  Tensor x, w, b, g;
};

NormInputs norm_inputs(const NormCase& c, ScalarType t, int64_t seed) {
  manual_seed(seed);
  const auto opts = TensorOptions().dtype(kDouble);
  return {(randn(c.shape, opts) * 2 + 0.5).to(t), (randn(c.normalized, opts) + 1).to(t),
          randn(c.normalized, opts).to(t), randn(c.shape, opts).to(t)};
}

NormResult run_norm(const NormInputs& in, const NormCase& c, bool rms, bool affine, Device device) {
  Tensor x = in.x.to(device).requires_grad_();
  Tensor w = affine ? in.w.to(device).requires_grad_() : Tensor();
  Tensor b = affine && !rms ? in.b.to(device).requires_grad_() : Tensor();
  Tensor y = rms ? F::rms_norm(x, F::RMSNormFuncOptions(c.normalized).weight(w).eps(1e-5))
                 : F::layer_norm(x, F::LayerNormFuncOptions(c.normalized).weight(w).bias(b));
  std::vector<Tensor> wrt = {x};
  if (w.defined()) wrt.push_back(w);
  if (b.defined()) wrt.push_back(b);
  auto grads = autograd::grad({y}, wrt, {in.g.to(device)});
  NormResult r{y.detach(), grads[0], Tensor(), Tensor()};
  if (w.defined()) r.dw = grads[1];
  if (b.defined()) r.db = grads[2];
  return r;
}

// Tolerances: the devices add in different orders (lanes vs warps), so float32 results differ
// by a few ulps of the row sums; a 16-bit result may round the other way (one ulp of its own).
// dw/db sum thousands of rows, so the absolute part scales with the largest value.
Tol norm_tolerance(ScalarType t) {
  switch (t) {
    case kFloat:
      return {1e-4, 1e-5};
    case kDouble:
      return {1e-10, 1e-12};
    default:
      return tolerance_for(t);
  }
}

void expect_close(const Tensor& cpu, const Tensor& cuda, const std::string& what) {
  expect_close_scaled(cpu, cuda, what, norm_tolerance(cpu.dtype()));
}

std::string describe_case(const NormCase& c, ScalarType t, bool rms, bool affine) {
  std::string s = rms ? "rms_norm" : "layer_norm";
  s += " [";
  for (size_t i = 0; i < c.shape.size(); ++i) s += (i ? "," : "") + std::to_string(c.shape[i]);
  s += "] ";
  s += to_string(t);
  s += affine ? " affine" : " plain";
  return s;
}

void check_norm_case(const NormCase& c, bool rms) {
  const Device gpu(kCUDA, 0), cpu(kCPU);
  int64_t seed = 100;
  for (ScalarType t : float_dtypes()) {
    for (bool affine : {true, false}) {
      const std::string what = describe_case(c, t, rms, affine);
      const NormInputs in = norm_inputs(c, t, ++seed);
      const NormResult want = run_norm(in, c, rms, affine, cpu);
      const NormResult got = run_norm(in, c, rms, affine, gpu);
      expect_close(want.y, got.y, what + " y");
      expect_close(want.dx, got.dx, what + " dx");
      expect_close(want.dw, got.dw, what + " dw");
      expect_close(want.db, got.db, what + " db");
    }
  }
}

}  // namespace

TEST(CudaNorm, EveryFloatDtypeHasAKernelOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    EXPECT_TRUE(supports(OpId::layer_norm, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::layer_norm_backward, kCUDA, t)) << t;
  }
  EXPECT_FALSE(supports(OpId::layer_norm, kCUDA, kLong));
}

TEST(CudaNorm, LayerNormMatchesCpuForwardAndBackward) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (const NormCase& c : kNormCases) check_norm_case(c, /*rms=*/false);
}

TEST(CudaNorm, RmsNormMatchesCpuForwardAndBackward) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (const NormCase& c : kNormCases) check_norm_case(c, /*rms=*/true);
}

TEST(CudaNorm, EmptyInputsGiveEmptyOutputsAndZeroParameterGradients) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<NormCase> empty_cases = {{{0, 8}, {8}}, {{3, 0}, {0}}, {{2, 0, 4}, {4}}};
  for (const NormCase& c : empty_cases) {
    for (bool rms : {false, true}) {
      for (ScalarType t : float_dtypes()) {
        const std::string what = describe_case(c, t, rms, true);
        const NormInputs in = norm_inputs(c, t, 7);
        const NormResult want = run_norm(in, c, rms, true, Device(kCPU));
        const NormResult got = run_norm(in, c, rms, true, Device(kCUDA, 0));
        expect_close(want.y, got.y, what + " y");
        expect_close(want.dx, got.dx, what + " dx");
        expect_close(want.dw, got.dw, what + " dw");
        expect_close(want.db, got.db, what + " db");
        if (c.normalized[0] > 0) {
          EXPECT_EQ(got.dw.to(Device(kCPU)).abs().sum().item<double>(), 0.0) << what;
        }
      }
    }
  }
}

// Non-contiguous input (the op makes it contiguous first) and a weight on another dtype (the
// composed path, which must agree with the kernel).
TEST(CudaNorm, StridedInputAndMixedDtypesMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(9);
  Tensor x = randn({40, 12}), w = randn({40}), b = randn({40});
  auto ln = [](const Tensor& in, const Tensor& wt, const Tensor& bs) {
    return F::layer_norm(in, F::LayerNormFuncOptions({40}).weight(wt).bias(bs));
  };
  const Tensor want = ln(x.t(), w, b);
  expect_close(want, ln(on_cuda(x).t(), on_cuda(w), on_cuda(b)), "strided");
  expect_close(want, ln(on_cuda(x).t(), on_cuda(w.to(kDouble)), on_cuda(b)), "double weight");
}

// create_graph takes the composed backward on CUDA as on the CPU: second derivatives agree.
TEST(CudaNorm, DoubleBackwardMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(10);
  Tensor x0 = randn({5, 7}, kDouble), w0 = randn({7}, kDouble), g = randn({5, 7}, kDouble);
  auto second = [&](Device dev) {
    Tensor x = x0.to(dev).requires_grad_(), w = w0.to(dev).requires_grad_();
    Tensor y = F::layer_norm(x, F::LayerNormFuncOptions({7}).weight(w));
    Tensor dx = autograd::grad({(y * g.to(dev)).sum()}, {x}, {}, true, true)[0];
    return autograd::grad({dx.square().sum()}, {x, w});
  };
  auto want = second(Device(kCPU));
  auto got = second(Device(kCUDA, 0));
  expect_close(want[0], got[0], "d2/dx2");
  expect_close(want[1], got[1], "d2/dxdw");
}
