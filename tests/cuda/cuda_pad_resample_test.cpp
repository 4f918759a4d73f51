// The pad and resample families on CUDA (kernels/cuda/pad_kernels.cu, resample_kernels.cu,
// resample_grid_sample.cu) against the CPU kernels, through the public functional API: F::pad in
// every index-map mode (pad_nd / pad_nd_backward), F::unfold / F::fold (im2col / col2im),
// F::interpolate in every mode (upsample / upsample_backward) and F::grid_sample
// (grid_sample / grid_sample_backward). Every case runs forward and backward for float32,
// float64, float16 and bfloat16 on odd sizes, channels-last inputs, shapes past one wave of
// blocks (the grid-stride loops) and rows longer than a block, and empty inputs.
//
// The scatters that add with atomics on the GPU (pad_nd_backward, grid_sample's grad_input) may
// add in another order than the CPU: the comparison allows the dtype's rounding, scaled by the
// largest value. Grid coordinates are multiples of 1/64, so that unnormalising them is exact on
// both devices (no fused multiply-add can move a point across a pixel boundary, where nearest
// sampling and the bilinear grid gradient jump).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ember/nn/functional.h"
#include "src/dispatch/dispatch.h"
#include "tests/cuda/cuda_test_util.h"

namespace cuda_pad_resample_test {

namespace F = ember::nn::functional;
using ember::Device;
using ember::MemoryFormat;
using ember::ScalarType;
using ember::Tensor;
using ember::TensorOptions;
using ember_cuda_test::float_dtypes;
using ember_cuda_test::on_cuda;
using ember_cuda_test::Tol;
using Shape = std::vector<int64_t>;

const Device kCpu(ember::kCPU);
const Device kGpu(ember::kCUDA, 0);

Tol pr_tolerance(ScalarType t) {
  switch (t) {
    case ember::kFloat:
      return {1e-4, 1e-5};
    case ember::kDouble:
      return {1e-10, 1e-12};
    default:
      return ember_cuda_test::tolerance_for(t);
  }
}

std::string pr_shape(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// cuda (on the GPU) matches cpu: dtype, shape, and values within the dtype's tolerance, the
// absolute part scaled by the largest value (integer results must be equal).
void pr_expect_close(const Tensor& cpu, const Tensor& cuda, const std::string& what) {
  ASSERT_EQ(cpu.defined(), cuda.defined()) << what;
  if (!cpu.defined()) return;
  ASSERT_TRUE(cuda.is_cuda()) << what;
  const Tensor got = cuda.to(kCpu);
  ASSERT_EQ(got.dtype(), cpu.dtype()) << what;
  ASSERT_EQ(got.sizes(), cpu.sizes()) << what;
  if (cpu.numel() == 0) return;
  if (!cpu.is_floating_point()) {
    EXPECT_TRUE(ember::equal(got, cpu)) << what << " (" << cpu.dtype() << ")";
    return;
  }
  const Tol tol = pr_tolerance(cpu.dtype());
  const Tensor a = cpu.to(ember::kDouble), b = got.to(ember::kDouble);
  const double scale = std::max(1.0, a.abs().max().item<double>());
  const double max_err = (a - b).abs().max().item<double>();
  EXPECT_TRUE(ember::allclose(b, a, tol.rtol, tol.atol * scale, /*equal_nan=*/true))
      << what << " (" << cpu.dtype() << "): max |cpu - cuda| = " << max_err << ", scale " << scale;
}

// Values of both signs for `shape`, the same on every call for a seed.
Tensor pr_input(const Shape& shape, ScalarType t, uint64_t seed) {
  ember::manual_seed(seed);
  if (ember::is_floating_point(t))
    return ember::randn(shape, TensorOptions().dtype(ember::kDouble)).to(t);
  if (t == ember::kBool) return ember::randint(0, 2, shape).to(t);
  if (t == ember::kByte) return ember::randint(0, 200, shape).to(t);
  return ember::randint(-100, 100, shape).to(t);
}

// Runs f on a CPU leaf x0 and on its CUDA copy (optionally in another memory format first),
// compares the outputs, backpropagates the same cotangent through both and compares the input
// gradients (floating dtypes only).
template <class Fn>
void pr_check(const Tensor& x0, const Fn& f, const std::string& what,
              MemoryFormat mf = MemoryFormat::Contiguous) {
  const bool grads = x0.is_floating_point();
  Tensor x = x0.clone().contiguous(mf);
  Tensor xc = on_cuda(x0).contiguous(mf);
  if (grads) {
    x.requires_grad_();
    xc.requires_grad_();
  }
  const Tensor y = f(x);
  const Tensor yc = f(xc);
  pr_expect_close(y.detach(), yc.detach(), what + " forward");
  if (mf != MemoryFormat::Contiguous && y.dim() == x0.dim()) {
    EXPECT_EQ(y.is_contiguous(mf), yc.is_contiguous(mf)) << what << ": memory format";
  }
  if (!grads) return;
  ember::manual_seed(99);
  const Tensor g = ember::randn(y.sizes(), TensorOptions().dtype(ember::kDouble)).to(y.dtype());
  y.backward(g);
  yc.backward(on_cuda(g));
  ASSERT_TRUE(xc.grad().defined()) << what;
  pr_expect_close(x.grad(), xc.grad(), what + " grad");
}

// ---- pad ----

struct PadCase {
  Shape shape;
  Shape pad;
};

const std::vector<std::pair<const char*, F::PadFuncOptions::mode_t>> kPadModes = {
    {"reflect", ember::kReflect}, {"replicate", ember::kReplicate}, {"circular", ember::kCircular}};

// 1-, 2- and 3-D padding, batched and unbatched, asymmetric pads, a row longer than a block of
// threads (300), and a case past one wave of blocks (64·32·44 rows).
const std::vector<PadCase> kPadCases = {
    {{2, 3, 7}, {2, 3}},
    {{3, 9}, {4, 1}},
    {{2, 3, 5, 6}, {1, 2, 3, 0}},
    {{3, 5, 6}, {2, 2, 1, 1}},
    {{1, 2, 3, 4, 5}, {1, 1, 2, 0, 2, 1}},
    {{2, 3, 300}, {5, 7}},
    {{64, 32, 40, 40}, {2, 2, 2, 2}},
};

Tensor pr_pad(const Tensor& x, const Shape& pad, const F::PadFuncOptions::mode_t& mode) {
  return F::pad(x, F::PadFuncOptions(pad).mode(mode));
}

TEST(CudaPadResample, EveryRowHasTheCpuDtypesOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  using ember::OpId;
  for (ScalarType t : ember_cuda_test::all_dtypes()) {
    EXPECT_EQ(ember::supports(OpId::pad_nd, ember::kCUDA, t),
              ember::supports(OpId::pad_nd, ember::kCPU, t))
        << t;
  }
  for (ScalarType t : float_dtypes()) {
    for (OpId op : {OpId::pad_nd_backward, OpId::im2col, OpId::col2im, OpId::upsample,
                    OpId::upsample_backward, OpId::grid_sample, OpId::grid_sample_backward}) {
      EXPECT_EQ(ember::supports(op, ember::kCUDA, t), ember::supports(op, ember::kCPU, t))
          << ember::op_name(op) << " " << t;
    }
  }
  EXPECT_TRUE(ember::supports(OpId::upsample, ember::kCUDA, ember::kHalf));
  EXPECT_TRUE(ember::supports(OpId::col2im, ember::kCUDA, ember::kDouble));
}

TEST(CudaPadResample, PadMatchesCpuInEveryModeAndFloatDtype) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  uint64_t seed = 1;
  for (const PadCase& c : kPadCases) {
    for (const auto& [name, mode] : kPadModes) {
      for (ScalarType t : float_dtypes()) {
        const std::string what = std::string("pad ") + name + " " + pr_shape(c.shape) + " by " +
                                 pr_shape(c.pad) + " " + ember::to_string(t);
        pr_check(
            pr_input(c.shape, t, ++seed), [&](const Tensor& x) { return pr_pad(x, c.pad, mode); },
            what);
      }
    }
  }
}

// Negative pads crop (and circular padding then wraps what is left); the cropped positions get a
// zero gradient.
TEST(CudaPadResample, NegativePadsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<PadCase> cases = {{{2, 3, 8}, {-2, 3}}, {{2, 4, 6, 5}, {-1, 2, 2, -2}}};
  for (const PadCase& c : cases) {
    for (const auto& [name, mode] : kPadModes) {
      for (ScalarType t : {ember::kFloat, ember::kDouble, ember::kHalf}) {
        const std::string what = std::string("pad ") + name + " " + pr_shape(c.shape) + " by " +
                                 pr_shape(c.pad) + " " + ember::to_string(t);
        pr_check(
            pr_input(c.shape, t, 3), [&](const Tensor& x) { return pr_pad(x, c.pad, mode); }, what);
      }
    }
  }
}

// The gather moves bytes, so every dtype pads (1-, 2-, 4- and 8-byte elements).
TEST(CudaPadResample, PadMovesEveryDtype) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<PadCase> cases = {{{2, 3, 5, 6}, {1, 2, 3, 0}}, {{2, 7}, {3, 2}}};
  for (ScalarType t : ember_cuda_test::all_dtypes()) {
    for (const PadCase& c : cases) {
      for (const auto& [name, mode] : kPadModes) {
        const std::string what =
            std::string("pad ") + name + " " + pr_shape(c.shape) + " " + ember::to_string(t);
        pr_check(
            pr_input(c.shape, t, 4), [&](const Tensor& x) { return pr_pad(x, c.pad, mode); }, what);
      }
    }
  }
}

// A channels-last image pads as [N, H, W, C] with an identity map over C (src/ops/nn_pad.cpp)
// and stays channels-last; a channels-last 3-D volume goes through the planar path.
TEST(CudaPadResample, ChannelsLastPadMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& [name, mode] : kPadModes) {
    for (ScalarType t : float_dtypes()) {
      const std::string suffix = std::string(name) + " " + ember::to_string(t);
      pr_check(
          pr_input({2, 5, 6, 7}, t, 5),
          [&](const Tensor& x) {
            return pr_pad(x, {2, 1, 0, 3}, mode);
          },
          "channels-last pad " + suffix, MemoryFormat::ChannelsLast);
      pr_check(
          pr_input({2, 3, 4, 5, 6}, t, 6),
          [&](const Tensor& x) {
            return pr_pad(x, {1, 2, 1, 0, 2, 1}, mode);
          },
          "channels-last-3d pad " + suffix, MemoryFormat::ChannelsLast3d);
    }
  }
}

TEST(CudaPadResample, EmptyBatchPadsAndBackpropagates) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& [name, mode] : kPadModes) {
    for (ScalarType t : float_dtypes()) {
      pr_check(
          pr_input({0, 3, 5, 6}, t, 7),
          [&](const Tensor& x) {
            return pr_pad(x, {1, 2, 2, 1}, mode);
          },
          std::string("empty pad ") + name + " " + ember::to_string(t));
    }
  }
}

// ---- unfold / fold ----

struct FoldCase {
  Shape shape;  // of the image
  Shape kernel, dilation, padding, stride;
};

// Strides, dilations and paddings in both dims, overlapping blocks (stride < kernel), gaps
// (stride > kernel), padding wider than the kernel's reach, and block rows longer than a block
// of threads (out_w = 300), and one past a wave of blocks.
const std::vector<FoldCase> kFoldCases = {
    {{2, 3, 7, 9}, {3, 2}, {1, 1}, {1, 0}, {2, 1}},
    {{1, 2, 10, 11}, {3, 3}, {2, 3}, {2, 1}, {3, 2}},
    {{3, 4, 5, 5}, {1, 1}, {1, 1}, {0, 0}, {1, 1}},
    {{1, 2, 6, 6}, {4, 4}, {1, 1}, {3, 3}, {1, 1}},
    {{2, 3, 9, 8}, {2, 2}, {1, 1}, {0, 1}, {3, 3}},
    {{2, 1, 20, 300}, {2, 3}, {1, 1}, {1, 1}, {1, 1}},
    {{16, 32, 30, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
};

F::UnfoldFuncOptions pr_unfold_options(const FoldCase& c) {
  return F::UnfoldFuncOptions({c.kernel[0], c.kernel[1]})
      .dilation({c.dilation[0], c.dilation[1]})
      .padding({c.padding[0], c.padding[1]})
      .stride({c.stride[0], c.stride[1]});
}

F::FoldFuncOptions pr_fold_options(const FoldCase& c) {
  const int64_t h = c.shape[c.shape.size() - 2], w = c.shape.back();
  return F::FoldFuncOptions({h, w}, {c.kernel[0], c.kernel[1]})
      .dilation({c.dilation[0], c.dilation[1]})
      .padding({c.padding[0], c.padding[1]})
      .stride({c.stride[0], c.stride[1]});
}

std::string pr_fold_name(const char* op, const FoldCase& c, ScalarType t) {
  return std::string(op) + " " + pr_shape(c.shape) + " k" + pr_shape(c.kernel) + " d" +
         pr_shape(c.dilation) + " p" + pr_shape(c.padding) + " s" + pr_shape(c.stride) + " " +
         ember::to_string(t);
}

TEST(CudaPadResample, UnfoldAndFoldMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  uint64_t seed = 20;
  for (const FoldCase& c : kFoldCases) {
    for (ScalarType t : float_dtypes()) {
      const auto uo = pr_unfold_options(c);
      const auto fo = pr_fold_options(c);
      // unfold: im2col forward, col2im backward.
      pr_check(
          pr_input(c.shape, t, ++seed), [&](const Tensor& x) { return F::unfold(x, uo); },
          pr_fold_name("unfold", c, t));
      // fold: col2im forward, im2col backward, on columns of the matching shape.
      const Shape cols = F::unfold(ember::zeros(c.shape), uo).sizes().vec();
      pr_check(
          pr_input(cols, t, ++seed), [&](const Tensor& x) { return F::fold(x, fo); },
          pr_fold_name("fold", c, t));
    }
  }
}

TEST(CudaPadResample, UnbatchedAndEmptyFoldMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const FoldCase c{{3, 7, 9}, {3, 2}, {1, 2}, {1, 0}, {2, 1}};
  const FoldCase empty{{0, 3, 5, 5}, {2, 2}, {1, 1}, {0, 0}, {1, 1}};
  for (ScalarType t : float_dtypes()) {
    for (const FoldCase& k : {c, empty}) {
      const auto uo = pr_unfold_options(k);
      pr_check(
          pr_input(k.shape, t, 30), [&](const Tensor& x) { return F::unfold(x, uo); },
          pr_fold_name("unfold", k, t));
      const Shape cols = F::unfold(ember::zeros(k.shape), uo).sizes().vec();
      pr_check(
          pr_input(cols, t, 31), [&](const Tensor& x) { return F::fold(x, pr_fold_options(k)); },
          pr_fold_name("fold", k, t));
    }
  }
}

// ---- interpolate ----

struct InterpCase {
  const char* name;
  Shape shape;
  F::InterpolateFuncOptions options;
};

F::InterpolateFuncOptions pr_sized(Shape size, F::InterpolateFuncOptions::mode_t mode) {
  return F::InterpolateFuncOptions().size(std::move(size)).mode(mode);
}

F::InterpolateFuncOptions pr_scaled(std::vector<double> scale,
                                    F::InterpolateFuncOptions::mode_t mode) {
  return F::InterpolateFuncOptions().scale_factor(std::move(scale)).mode(mode);
}

// Every mode up and down, with sizes and with user scale factors (the kernels then use 1/scale,
// not in/out), align_corners both ways, antialias, and 1-, 2- and 3-D.
std::vector<InterpCase> pr_interp_cases() {
  using namespace ember;  // the mode enumerators
  const Shape s1{2, 3, 7}, s2{2, 3, 7, 9}, s3{1, 2, 4, 5, 6};
  return {
      {"nearest 1d up", s1, pr_sized({12}, kNearest)},
      {"nearest 1d scale", s1, pr_scaled({1.7}, kNearest)},
      {"nearest-exact 1d down", s1, pr_sized({5}, kNearestExact)},
      {"linear 1d up", s1, pr_sized({13}, kLinear).align_corners(false)},
      {"linear 1d align", s1, pr_sized({4}, kLinear).align_corners(true)},
      {"area 1d", s1, pr_sized({3}, kArea)},
      {"nearest 2d x2", s2, pr_sized({14, 18}, kNearest)},
      {"nearest 2d odd", s2, pr_sized({5, 13}, kNearest)},
      {"nearest-exact 2d", s2, pr_sized({11, 4}, kNearestExact)},
      {"bilinear up", s2, pr_sized({11, 13}, kBilinear).align_corners(false)},
      {"bilinear align down", s2, pr_sized({4, 5}, kBilinear).align_corners(true)},
      {"bilinear scale", s2, pr_scaled({1.5, 0.7}, kBilinear).align_corners(false)},
      {"bicubic mixed", s2, pr_sized({11, 4}, kBicubic).align_corners(false)},
      {"bicubic align up", s2, pr_sized({15, 17}, kBicubic).align_corners(true)},
      {"area down", s2, pr_sized({3, 4}, kArea)},
      {"area up", s2, pr_sized({9, 12}, kArea)},
      {"bilinear antialias down", s2,
       pr_sized({3, 4}, kBilinear).align_corners(false).antialias(true)},
      {"bicubic antialias down", s2,
       pr_sized({4, 5}, kBicubic).align_corners(false).antialias(true)},
      {"bicubic antialias up", s2,
       pr_sized({11, 13}, kBicubic).align_corners(false).antialias(true)},
      {"nearest 3d", s3, pr_sized({7, 3, 9}, kNearest)},
      {"nearest-exact 3d", s3, pr_sized({3, 7, 5}, kNearestExact)},
      {"trilinear", s3, pr_sized({7, 3, 9}, kTrilinear).align_corners(false)},
      {"trilinear align", s3, pr_sized({5, 8, 4}, kTrilinear).align_corners(true)},
      {"area 3d", s3, pr_sized({2, 3, 3}, kArea)},
  };
}

TEST(CudaPadResample, InterpolateMatchesCpuInEveryMode) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  uint64_t seed = 40;
  for (const InterpCase& c : pr_interp_cases()) {
    for (ScalarType t : float_dtypes()) {
      pr_check(
          pr_input(c.shape, t, ++seed),
          [&](const Tensor& x) { return F::interpolate(x, c.options); },
          std::string("interpolate ") + c.name + " " + ember::to_string(t));
    }
  }
}

// Channels-last tensors keep their layout; the kernels then run with the channels innermost.
TEST(CudaPadResample, ChannelsLastInterpolateMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (const InterpCase& c : pr_interp_cases()) {
    if (c.shape.size() < 4) continue;
    const MemoryFormat mf =
        c.shape.size() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
    Shape shape = c.shape;
    shape[1] = 5;  // channels innermost need C > 1 to differ from planar
    for (ScalarType t : float_dtypes()) {
      pr_check(
          pr_input(shape, t, 50), [&](const Tensor& x) { return F::interpolate(x, c.options); },
          std::string("channels-last interpolate ") + c.name + " " + ember::to_string(t), mf);
    }
  }
}

// More output elements (and input elements, backward) than one wave of threads.
TEST(CudaPadResample, LargeInterpolateMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  using namespace ember;  // the mode enumerators
  for (ScalarType t : {kFloat, kHalf}) {
    pr_check(
        pr_input({4, 16, 64, 64}, t, 60),
        [&](const Tensor& x) {
          return F::interpolate(x, pr_sized({128, 96}, kBilinear).align_corners(false));
        },
        std::string("large bilinear ") + to_string(t));
    pr_check(
        pr_input({4, 16, 64, 64}, t, 61),
        [&](const Tensor& x) {
          return F::interpolate(x, pr_sized({150, 130}, kNearest));
        },
        std::string("large nearest ") + to_string(t), MemoryFormat::ChannelsLast);
  }
}

TEST(CudaPadResample, EmptyInterpolateMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  using namespace ember;  // the mode enumerators
  for (ScalarType t : float_dtypes()) {
    for (const Shape& s : {Shape{0, 3, 4, 5}, Shape{2, 0, 4, 5}}) {
      pr_check(
          pr_input(s, t, 70),
          [&](const Tensor& x) {
            return F::interpolate(x, pr_sized({8, 10}, kBilinear).align_corners(false));
          },
          "empty bilinear " + pr_shape(s) + " " + to_string(t));
    }
  }
}

// ---- grid_sample ----

// A grid of `shape` ([N, *out, dims]) with coordinates k/64 in [-1.25, 1.25]: some points outside
// the image, some exactly on pixel centres and borders.
Tensor pr_grid(const Shape& shape, ScalarType t, uint64_t seed) {
  ember::manual_seed(seed);
  return ember::div(ember::randint(-80, 81, shape, TensorOptions().dtype(ember::kDouble)), 64.0)
      .to(t);
}

// Samples input x0 at grid g0 on both devices, then backpropagates the same cotangent and
// compares grad_input and grad_grid (each only when asked for).
void pr_check_grid_sample(const Tensor& x0, const Tensor& g0, const F::GridSampleFuncOptions& o,
                          const std::string& what, bool grad_input, bool grad_grid,
                          MemoryFormat mf = MemoryFormat::Contiguous) {
  Tensor x = x0.clone().contiguous(mf), g = g0.clone();
  Tensor xc = on_cuda(x0).contiguous(mf), gc = on_cuda(g0);
  if (grad_input) {
    x.requires_grad_();
    xc.requires_grad_();
  }
  if (grad_grid) {
    g.requires_grad_();
    gc.requires_grad_();
  }
  const Tensor y = F::grid_sample(x, g, o);
  const Tensor yc = F::grid_sample(xc, gc, o);
  pr_expect_close(y.detach(), yc.detach(), what + " forward");
  if (!grad_input && !grad_grid) return;
  ember::manual_seed(98);
  const Tensor cot = ember::randn(y.sizes(), TensorOptions().dtype(ember::kDouble)).to(y.dtype());
  y.backward(cot);
  yc.backward(on_cuda(cot));
  if (grad_input) pr_expect_close(x.grad(), xc.grad(), what + " grad_input");
  if (grad_grid) pr_expect_close(g.grad(), gc.grad(), what + " grad_grid");
}

const std::vector<std::pair<const char*, F::GridSampleFuncOptions::mode_t>> kGridModes = {
    {"bilinear", ember::kBilinear}, {"nearest", ember::kNearest}, {"bicubic", ember::kBicubic}};
const std::vector<std::pair<const char*, F::GridSampleFuncOptions::padding_mode_t>> kGridPaddings =
    {{"zeros", ember::kZeros}, {"border", ember::kBorder}, {"reflection", ember::kReflection}};

template <class Fn>
void pr_for_each_grid_option(bool three_d, const Fn& fn) {
  for (const auto& [mname, mode] : kGridModes) {
    if (three_d && mname == std::string("bicubic")) continue;  // 2-D only, as in PyTorch
    for (const auto& [pname, padding] : kGridPaddings) {
      for (bool align : {false, true}) {
        const auto o =
            F::GridSampleFuncOptions().mode(mode).padding_mode(padding).align_corners(align);
        fn(o, std::string(mname) + " " + pname + (align ? " align" : ""));
      }
    }
  }
}

TEST(CudaPadResample, GridSample2dMatchesCpuInEveryModeAndPadding) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    const Tensor x = pr_input({2, 3, 6, 7}, t, 80);
    const Tensor g = pr_grid({2, 5, 4, 2}, t, 81);
    pr_for_each_grid_option(false, [&](const F::GridSampleFuncOptions& o, const std::string& n) {
      pr_check_grid_sample(x, g, o, "grid_sample 2d " + n + " " + ember::to_string(t), true, true);
    });
  }
}

TEST(CudaPadResample, GridSample3dMatchesCpuInEveryModeAndPadding) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    const Tensor x = pr_input({2, 2, 4, 5, 6}, t, 82);
    const Tensor g = pr_grid({2, 3, 4, 5, 3}, t, 83);
    pr_for_each_grid_option(true, [&](const F::GridSampleFuncOptions& o, const std::string& n) {
      pr_check_grid_sample(x, g, o, "grid_sample 3d " + n + " " + ember::to_string(t), true, true);
    });
  }
}

// Channels-last inputs (grad_input's workspace then keeps the channels innermost), and each
// gradient alone (the kernel skips the other).
TEST(CudaPadResample, GridSampleChannelsLastAndSingleGradientsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    const Tensor x = pr_input({2, 5, 6, 7}, t, 84);
    const Tensor g = pr_grid({2, 3, 8, 2}, t, 85);
    const Tensor x3 = pr_input({2, 4, 3, 5, 6}, t, 86);
    const Tensor g3 = pr_grid({2, 2, 3, 4, 3}, t, 87);
    pr_for_each_grid_option(false, [&](const F::GridSampleFuncOptions& o, const std::string& n) {
      const std::string suffix = n + " " + ember::to_string(t);
      pr_check_grid_sample(x, g, o, "channels-last grid_sample " + suffix, true, true,
                           MemoryFormat::ChannelsLast);
      pr_check_grid_sample(x, g, o, "grid_sample input grad only " + suffix, true, false);
      pr_check_grid_sample(x, g, o, "grid_sample grid grad only " + suffix, false, true);
    });
    pr_for_each_grid_option(true, [&](const F::GridSampleFuncOptions& o, const std::string& n) {
      pr_check_grid_sample(x3, g3, o,
                           "channels-last-3d grid_sample " + n + " " + ember::to_string(t), true,
                           true, MemoryFormat::ChannelsLast3d);
    });
  }
}

// More grid points than one wave of threads, many points landing on the same pixels (the
// grad_input atomics contend).
TEST(CudaPadResample, LargeGridSampleMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {ember::kFloat, ember::kBFloat16}) {
    const Tensor x = pr_input({8, 4, 32, 32}, t, 88);
    const Tensor g = pr_grid({8, 200, 200, 2}, t, 89);
    const auto o = F::GridSampleFuncOptions()
                       .mode(ember::kBilinear)
                       .padding_mode(ember::kZeros)
                       .align_corners(false);
    pr_check_grid_sample(x, g, o, std::string("large grid_sample ") + ember::to_string(t), true,
                         true);
  }
}

TEST(CudaPadResample, EmptyGridSampleMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto o = F::GridSampleFuncOptions().align_corners(false);
  for (ScalarType t : float_dtypes()) {
    pr_check_grid_sample(pr_input({0, 3, 4, 5}, t, 90), pr_grid({0, 3, 2, 2}, t, 91), o,
                         "grid_sample empty batch", true, true);
    pr_check_grid_sample(pr_input({2, 3, 4, 5}, t, 92), pr_grid({2, 0, 2, 2}, t, 93), o,
                         "grid_sample empty grid", true, true);
    pr_check_grid_sample(pr_input({2, 0, 4, 5}, t, 94), pr_grid({2, 3, 2, 2}, t, 95), o,
                         "grid_sample no channels", true, true);
  }
}

}  // namespace cuda_pad_resample_test
