// Convolution on CUDA (kernels/cuda/conv_cudnn*.cpp, the `convolution*` slots through cuDNN)
// against the CPU kernels: forward and the gradients of input, weight and bias, through the public
// API (ember::convolution, conv1d/2d/3d with "same"), for every float dtype. The cases reach each
// path of the mapping onto cuDNN: 1-d (as 2-d with H = 1), 2-d, 3-d; strides, dilation, groups and
// depthwise; 'same' with an even kernel (asymmetric padding, staged as explicit zeros); transposed
// convolution with output_padding below the stride (cuDNN's floor) and above it (staged, the
// gradient's unread tail cut off); channels-last (NHWC, and float64 through NCHW copies);
// misaligned views; an empty batch.
//
// References: the CPU kernel in the same dtype where the CPU has one (float32, float64,
// bfloat16); float16, which the CPU lacks, against float32 on the CPU from the same rounded
// values. Tolerances scale with the largest reference value (a convolution sums many products,
// so an element near zero carries the rounding of the large terms it sums): float32 runs without
// TF32 (exact float32 products; sums in another order, and Winograd/FFT algorithms, differ by a
// few ulps of the largest term), float16/bfloat16 round the result to their own precision (and
// cuDNN the bias sum once more).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ember/ops/nn_conv.h"
#include "src/dispatch/dispatch.h"
#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;

namespace {

struct CudaConvCase {
  std::string name;
  std::vector<int64_t> x_shape;  // batched
  std::vector<int64_t> w_shape;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool transposed;
  std::vector<int64_t> output_padding;
  std::string same;  // "same" / "valid" string padding instead of `padding`
  bool bias;
  bool channels_last;

  // A constructor rather than an aggregate: the cases name only their leading fields.
  CudaConvCase(std::string name_, std::vector<int64_t> x, std::vector<int64_t> w,
               std::vector<int64_t> stride_ = {1}, std::vector<int64_t> padding_ = {0},
               std::vector<int64_t> dilation_ = {1}, int64_t groups_ = 1, bool transposed_ = false,
               std::vector<int64_t> output_padding_ = {0}, std::string same_ = "",
               bool bias_ = true, bool channels_last_ = false)
      : name(std::move(name_)),
        x_shape(std::move(x)),
        w_shape(std::move(w)),
        stride(std::move(stride_)),
        padding(std::move(padding_)),
        dilation(std::move(dilation_)),
        groups(groups_),
        transposed(transposed_),
        output_padding(std::move(output_padding_)),
        same(std::move(same_)),
        bias(bias_),
        channels_last(channels_last_) {}
};

const std::vector<CudaConvCase>& cuda_conv_cases() {
  static const std::vector<CudaConvCase> cases = {
      {"conv1d strided", {3, 4, 17}, {6, 4, 3}, {2}, {1}},
      {"conv1d same even kernel, dilation, groups",
       {2, 4, 15},
       {6, 2, 4},
       {1},
       {0},
       {3},
       2,
       false,
       {0},
       "same"},
      {"conv2d 3x3", {2, 3, 9, 11}, {5, 3, 3, 3}, {1}, {1}},
      {"conv2d mixed stride/pad/dilation, groups",
       {2, 4, 13, 10},
       {6, 2, 3, 2},
       {2, 3},
       {1, 2},
       {2, 1},
       2},
      {"conv2d depthwise", {2, 6, 8, 8}, {12, 1, 3, 3}, {1}, {1}, {1}, 6},
      {"conv2d pointwise", {3, 5, 7, 9}, {7, 5, 1, 1}},
      {"conv2d same even kernel", {1, 3, 7, 8}, {4, 3, 4, 2}, {1}, {0}, {1}, 1, false, {0}, "same"},
      {"conv2d channels-last strided groups",
       {2, 6, 9, 7},
       {8, 3, 3, 3},
       {2},
       {1},
       {1},
       2,
       false,
       {0},
       "",
       true,
       true},
      {"conv2d channels-last same even kernel",
       {2, 4, 6, 7},
       {4, 4, 2, 2},
       {1},
       {0},
       {1},
       1,
       false,
       {0},
       "same",
       false,
       true},
      {"conv_transpose2d output_padding", {2, 4, 5, 6}, {4, 3, 3, 3}, {2}, {1}, {1}, 1, true, {1}},
      // output_padding >= stride (allowed as it is below the dilation): the right padding of the
      // non-transposed view is padding - output_padding, which is negative with padding 1.
      {"conv_transpose1d output_padding past stride, cut-off tail",
       {2, 3, 7},
       {3, 2, 3},
       {1},
       {1},
       {3},
       1,
       true,
       {2}},
      {"conv_transpose1d output_padding past stride, padded",
       {2, 3, 7},
       {3, 2, 3},
       {1},
       {4},
       {3},
       1,
       true,
       {2}},
      {"conv_transpose3d channels-last groups",
       {1, 4, 3, 4, 3},
       {4, 2, 2, 3, 2},
       {2},
       {0, 1, 0},
       {1},
       2,
       true,
       {1, 0, 1},
       "",
       true,
       true},
      {"conv3d", {2, 3, 5, 6, 4}, {4, 3, 3, 2, 3}, {1, 2, 1}, {1, 0, 1}, {1, 1, 2}},
      {"conv3d channels-last depthwise",
       {2, 4, 4, 5, 6},
       {4, 1, 3, 3, 3},
       {1},
       {1},
       {1},
       4,
       false,
       {0},
       "",
       true,
       true},
  };
  return cases;
}

struct CudaConvInputs {
  Tensor x, w, b, g;  // float64 on the CPU; g has y's shape
};

struct CudaConvResult {
  Tensor y, dx, dw, db;
};

MemoryFormat cuda_conv_format(const CudaConvCase& c) {
  if (!c.channels_last) return MemoryFormat::Contiguous;
  return c.x_shape.size() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
}

Tensor cuda_conv_call(const CudaConvCase& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  if (c.same.empty())
    return convolution(x, w, b, c.stride, c.padding, c.dilation, c.transposed, c.output_padding,
                       c.groups);
  switch (c.x_shape.size()) {
    case 3:
      return conv1d(x, w, b, c.stride, c.same, c.dilation, c.groups);
    case 4:
      return conv2d(x, w, b, c.stride, c.same, c.dilation, c.groups);
    default:
      return conv3d(x, w, b, c.stride, c.same, c.dilation, c.groups);
  }
}

CudaConvInputs cuda_conv_inputs(const CudaConvCase& c, int64_t seed) {
  manual_seed(seed);
  const auto opts = TensorOptions().dtype(kDouble);
  CudaConvInputs in;
  in.x = randn(c.x_shape, opts);
  in.w = randn(c.w_shape, opts) * 0.5;
  const int64_t out_channels = c.transposed ? c.w_shape[1] * c.groups : c.w_shape[0];
  in.b = randn({out_channels}, opts);
  const Tensor y = cuda_conv_call(c, in.x, in.w, in.b);
  in.g = randn(y.sizes(), opts);
  return in;
}

// Runs the case in `dtype` on `device` from the inputs rounded to `rounded` (the dtype under
// test, so that a float32 reference of a float16 case sees the same values).
CudaConvResult cuda_conv_run(const CudaConvCase& c, const CudaConvInputs& in, ScalarType rounded,
                             ScalarType dtype, Device device) {
  auto prepare = [&](const Tensor& t) { return t.to(rounded).to(dtype).to(device); };
  Tensor x = prepare(in.x).contiguous(cuda_conv_format(c)).requires_grad_();
  Tensor w = prepare(in.w).requires_grad_();
  Tensor b = c.bias ? prepare(in.b).requires_grad_() : Tensor();
  Tensor y = cuda_conv_call(c, x, w, b);
  std::vector<Tensor> wrt = {x, w};
  if (b.defined()) wrt.push_back(b);
  auto grads = autograd::grad({y}, wrt, {prepare(in.g)});
  CudaConvResult r{y.detach(), grads[0], grads[1], Tensor()};
  if (b.defined()) r.db = grads[2];
  return r;
}

ScalarType cuda_conv_reference_dtype(ScalarType t) {
  return supports(OpId::convolution, kCPU, t) ? t : kFloat;
}

Tol cuda_conv_tolerance(ScalarType t) {
  switch (t) {
    case kFloat:
      return {1e-4, 5e-5};
    case kDouble:
      return {1e-10, 1e-11};
    case kHalf:
      return {4e-3, 4e-3};
    default:
      return {2e-2, 2e-2};  // bfloat16: both sides round to 8 bits, one ulp apart at most each
  }
}

// `got` (CUDA, dtype t) against `want` (CPU, the reference dtype): |got - want| <= rtol·|want| +
// atol·max|want|.
void cuda_conv_expect_close(const Tensor& want, const Tensor& got, ScalarType t,
                            const std::string& what) {
  ASSERT_EQ(want.defined(), got.defined()) << what;
  if (!want.defined()) return;
  ASSERT_TRUE(got.is_cuda()) << what;
  ASSERT_EQ(got.dtype(), t) << what;
  Tensor a = want.to(kDouble);
  Tensor b = got.to(Device(kCPU)).to(kDouble);
  ASSERT_EQ(b.sizes(), a.sizes()) << what;
  if (a.numel() == 0) return;
  const Tol tol = cuda_conv_tolerance(t);
  double scale = a.abs().max().item<double>();
  if (scale == 0) scale = 1;
  const double max_err = (a - b).abs().max().item<double>();
  EXPECT_TRUE(allclose(b, a, tol.rtol, tol.atol * scale))
      << what << " (" << t << "): max |cpu - cuda| = " << max_err << ", largest |cpu| " << scale;
}

void cuda_conv_check_case(const CudaConvCase& c, int64_t seed) {
  const CudaConvInputs in = cuda_conv_inputs(c, seed);
  for (ScalarType t : float_dtypes()) {
    const std::string what = c.name + " " + to_string(t);
    const CudaConvResult want = cuda_conv_run(c, in, t, cuda_conv_reference_dtype(t), Device(kCPU));
    const CudaConvResult got = cuda_conv_run(c, in, t, t, Device(kCUDA, 0));
    cuda_conv_expect_close(want.y, got.y, t, what + " y");
    cuda_conv_expect_close(want.dx, got.dx, t, what + " d/dinput");
    cuda_conv_expect_close(want.dw, got.dw, t, what + " d/dweight");
    cuda_conv_expect_close(want.db, got.db, t, what + " d/dbias");
    if (c.channels_last) {
      const MemoryFormat f = cuda_conv_format(c);
      EXPECT_TRUE(got.y.is_contiguous(f)) << what << ": y keeps the channels-last layout";
      EXPECT_TRUE(got.dx.is_contiguous(f)) << what << ": d/dinput keeps the channels-last layout";
    }
  }
}

// Every test needs a GPU and a build with cuDNN (without it no CUDA conv kernel is registered).
bool cuda_conv_skip(std::string* why) {
  if (!ember::cuda::is_available()) {
    *why = "no CUDA device";
    return true;
  }
  if (!supports(OpId::convolution, kCUDA, kFloat)) {
    *why = "built without cuDNN: no CUDA convolution";
    return true;
  }
  return false;
}

#define CUDA_CONV_SKIP_UNLESS_READY()                \
  do {                                               \
    std::string why_;                                \
    if (cuda_conv_skip(&why_)) GTEST_SKIP() << why_; \
  } while (0)

}  // namespace

TEST(CudaConv, EveryFloatDtypeHasTheThreeKernels) {
  CUDA_CONV_SKIP_UNLESS_READY();
  for (ScalarType t : float_dtypes()) {
    EXPECT_TRUE(supports(OpId::convolution, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::convolution_backward_data, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::convolution_backward_weights, kCUDA, t)) << t;
  }
  EXPECT_FALSE(supports(OpId::convolution, kCUDA, kLong));
}

TEST(CudaConv, MatchesCpuForwardAndBackwardInEveryGeometry) {
  CUDA_CONV_SKIP_UNLESS_READY();
  int64_t seed = 300;
  for (const CudaConvCase& c : cuda_conv_cases()) cuda_conv_check_case(c, ++seed);
}

// The gradient of the bias alone (the weight needs none): summed by the op layer, not fused into
// the weight-gradient kernel; and the fused one when both are asked for.
TEST(CudaConv, BiasGradientAloneAndFusedMatchCpu) {
  CUDA_CONV_SKIP_UNLESS_READY();
  manual_seed(21);
  const Tensor x0 = randn({3, 4, 6, 5}), w0 = randn({6, 4, 3, 3}), b0 = randn({6});
  const Tensor g0 = randn({3, 6, 6, 5});
  for (bool weight_grad : {false, true}) {
    auto run = [&](Device d) {
      Tensor x = x0.to(d), w = w0.to(d), b = b0.to(d).requires_grad_();
      if (weight_grad) w.requires_grad_();
      Tensor y = conv2d(x, w, b, 1, 1);
      std::vector<Tensor> wrt = {b};
      if (weight_grad) wrt.push_back(w);
      return autograd::grad({y}, wrt, {g0.to(d)});
    };
    const auto want = run(Device(kCPU));
    const auto got = run(Device(kCUDA, 0));
    for (size_t i = 0; i < want.size(); ++i)
      cuda_conv_expect_close(
          want[i], got[i], kFloat,
          std::string(weight_grad ? "fused" : "alone") + " grad " + std::to_string(i));
  }
}

// Views at an offset that is not a multiple of 16 bytes: the kernels stage them (cuDNN's vector
// loads want aligned operands).
TEST(CudaConv, MisalignedViewsMatchCpu) {
  CUDA_CONV_SKIP_UNLESS_READY();
  manual_seed(22);
  // One sample of [3, 5, 7] float16 is 210 bytes: sample 1 starts 2 bytes past a 16-byte line.
  const Tensor x_all = randn({4, 3, 5, 7}), w0 = randn({4, 3, 3, 3}) * 0.5, b0 = randn({4});
  for (ScalarType t : float_dtypes()) {
    const ScalarType ref = cuda_conv_reference_dtype(t);
    auto run = [&](Device d, ScalarType dt) {
      Tensor x = x_all.to(t).to(dt).to(d).narrow(0, 1, 3).requires_grad_();
      Tensor w = w0.to(t).to(dt).to(d).requires_grad_();
      Tensor b = b0.to(t).to(dt).to(d);
      Tensor y = conv2d(x, w, b, 1, 1);
      auto grads = autograd::grad({y.sum()}, {x, w});
      return std::vector<Tensor>{y.detach(), grads[0], grads[1]};
    };
    const auto want = run(Device(kCPU), ref);
    const auto got = run(Device(kCUDA, 0), t);
    const char* names[] = {"y", "d/dinput", "d/dweight"};
    for (size_t i = 0; i < want.size(); ++i)
      cuda_conv_expect_close(want[i], got[i], t, std::string("misaligned view ") + names[i]);
  }
}

// The second call of a shape takes the cached algorithm: same result, bit for bit (forward
// algorithms are deterministic).
TEST(CudaConv, RepeatedCallsReuseTheAlgorithmAndAgree) {
  CUDA_CONV_SKIP_UNLESS_READY();
  manual_seed(23);
  const Tensor x = on_cuda(randn({2, 8, 12, 12})), w = on_cuda(randn({16, 8, 3, 3}));
  const Tensor first = conv2d(x, w, {}, 1, 1).to(Device(kCPU));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(conv2d(x, w, {}, 1, 1).to(Device(kCPU)).equal(first));
}

// An empty batch never reaches the kernels: empty output, zero weight and bias gradients.
TEST(CudaConv, EmptyBatchGivesEmptyOutputAndZeroGradients) {
  CUDA_CONV_SKIP_UNLESS_READY();
  for (ScalarType t : float_dtypes()) {
    Tensor x = on_cuda(zeros({0, 3, 5, 5}, TensorOptions().dtype(t))).requires_grad_();
    Tensor w = on_cuda(randn({4, 3, 3, 3}).to(t)).requires_grad_();
    Tensor b = on_cuda(randn({4}).to(t)).requires_grad_();
    Tensor y = conv2d(x, w, b, 1, 1);
    ASSERT_TRUE(y.is_cuda());
    EXPECT_EQ(y.sizes(), (std::vector<int64_t>{0, 4, 5, 5})) << t;
    y.sum().backward();
    EXPECT_EQ(x.grad().sizes(), x.sizes()) << t;
    EXPECT_EQ(w.grad().to(Device(kCPU)).abs().sum().item<double>(), 0.0) << t;
    EXPECT_EQ(b.grad().to(Device(kCPU)).abs().sum().item<double>(), 0.0) << t;
  }
}
