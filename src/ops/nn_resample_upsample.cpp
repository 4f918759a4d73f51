// The upsampling functions (upsample_nearest2d, upsample_bilinear2d, ...): checks, layout, the
// `upsample` kernel slot, and a backward through `upsample_backward`. Both directions are linear
// maps, each the adjoint of the other, so each records the other as its derivative: double
// backward (and beyond) costs nothing extra.
#include <string>

#include "ember/ops/factory.h"
#include "ember/ops/nn_resample.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"
#include "src/ops/nn_resample_impl.h"

namespace ember {
namespace detail {
namespace {

using ResampleMode = UpsampleParams::Mode;

// Everything both directions need: the op, the full input and output shapes, and the mapping.
struct UpsampleSpec {
  ResampleMode mode = ResampleMode::Nearest;
  int dims = 0;
  DimVector in_shape, out_shape;  // [N, C, *spatial]
  UpsampleScales scales;
  bool align_corners = false, antialias = false;
  const char* op = "";
  const char* node = "";
};

// Channels-last inputs keep their layout (the kernels' channels-last loops use it); the rest is
// made row-major.
MemoryFormat upsample_layout(const Tensor& t) {
  const MemoryFormat mf = t.suggest_memory_format();
  if ((t.dim() == 4 && mf == MemoryFormat::ChannelsLast) ||
      (t.dim() == 5 && mf == MemoryFormat::ChannelsLast3d))
    return mf;
  return MemoryFormat::Contiguous;
}

// Runs the slot `op` (upsample or upsample_backward) reading src into a new tensor of dst_shape.
template <OpId op>
Tensor run_upsample_kernel(const Tensor& src_in, const UpsampleSpec& s, IntArrayRef dst_shape) {
  const MemoryFormat mf = upsample_layout(src_in);
  const Tensor src = src_in.contiguous(mf);
  Tensor dst = empty(dst_shape, src.options(), mf);
  const bool forward = op == OpId::upsample;
  const Tensor& in_sized = forward ? src : dst;
  const Tensor& out_sized = forward ? dst : src;
  UpsampleParams p;
  p.mode = s.mode;
  p.dims = s.dims;
  p.batch = s.in_shape[0];
  p.channels = s.in_shape[1];
  for (int d = 0; d < s.dims; ++d) {
    p.in_size[d] = s.in_shape[2 + d];
    p.out_size[d] = s.out_shape[2 + d];
    p.scales[d] = s.scales[d].value_or(0.0);
  }
  for (int k = 0; k < 2 + s.dims; ++k) {
    p.in_stride[k] = in_sized.stride(k);
    p.out_stride[k] = out_sized.stride(k);
  }
  p.align_corners = s.align_corners;
  p.antialias = s.antialias;
  p.src = src.data_ptr();
  p.dst = dst.data_ptr();
  get_kernel<op>(src.device().type(), src.dtype())(src.dtype(), p);
  return dst;
}

Tensor upsample_backward(const Tensor& grad, const UpsampleSpec& s);

Tensor upsample_forward(const Tensor& input, const UpsampleSpec& s) {
  autograd::OpRecording rec(input);
  Tensor out = run_upsample_kernel<OpId::upsample>(input, s, s.out_shape);
  if (rec)
    autograd::record(s.node, out, autograd::edges_of(input),
                     [s](const Tensor& grad) { return upsample_backward(grad, s); });
  return out;
}

Tensor upsample_backward(const Tensor& grad, const UpsampleSpec& s) {
  autograd::OpRecording rec(grad);
  Tensor out = run_upsample_kernel<OpId::upsample_backward>(grad, s, s.in_shape);
  if (rec)
    autograd::record("UpsampleBackwardBackward0", out, autograd::edges_of(grad),
                     [s](const Tensor& gg) { return upsample_forward(gg, s); });
  return out;
}

const char* kSpatialShapes[] = {"", "[N, C, W]", "[N, C, H, W]", "[N, C, D, H, W]"};

}  // namespace

Tensor upsample(const Tensor& input, UpsampleParams::Mode mode, int dims, IntArrayRef output_size,
                const UpsampleScales& scales, bool align_corners, bool antialias, const char* op,
                const char* node) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", op);
  EMBER_CHECK(input.dim() == 2 + dims, "{}: expected a {}-D input {}, but got a {}-D input {}", op,
              2 + dims, kSpatialShapes[dims], input.dim(), input.sizes());
  EMBER_CHECK_TYPE(input.is_floating_point(),
                   "{}: input must have a floating dtype, but got {} {}. Hint: convert it with "
                   ".to(ember::kFloat)",
                   op, input.sizes(), input.dtype());
  EMBER_CHECK(static_cast<int>(output_size.size()) == dims,
              "{}: output_size must have {} elements (one per spatial dim), but got {}", op, dims,
              output_size);
  UpsampleSpec s;
  s.mode = mode;
  s.dims = dims;
  s.in_shape = DimVector(input.sizes());
  s.out_shape = DimVector{input.size(0), input.size(1)};
  bool positive = true;
  for (int d = 0; d < dims; ++d) {
    s.out_shape.push_back(output_size[d]);
    positive = positive && input.size(2 + d) > 0 && output_size[d] > 0;
  }
  EMBER_CHECK(positive,
              "{}: input and output spatial sizes must be greater than 0, but got input {} and "
              "output_size {}",
              op, input.sizes(), output_size);
  s.scales = scales;
  s.align_corners = align_corners;
  s.antialias = antialias;
  s.op = op;
  s.node = node;
  return upsample_forward(input, s);
}

}  // namespace detail

namespace {

using detail::UpsampleScales;
using ResampleMode = UpsampleParams::Mode;

Tensor nearest(const Tensor& x, IntArrayRef size, const UpsampleScales& sc, bool exact, int dims,
               const char* op, const char* node) {
  return detail::upsample(x, exact ? ResampleMode::NearestExact : ResampleMode::Nearest, dims, size,
                          sc, false, false, op, node);
}

}  // namespace

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales) {
  return nearest(self, output_size, {scales}, false, 1, "upsample_nearest1d",
                 "UpsampleNearest1DBackward0");
}
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest(self, output_size, {scales_h, scales_w}, false, 2, "upsample_nearest2d",
                 "UpsampleNearest2DBackward0");
}
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_d, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return nearest(self, output_size, {scales_d, scales_h, scales_w}, false, 3, "upsample_nearest3d",
                 "UpsampleNearest3DBackward0");
}
Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales) {
  return nearest(self, output_size, {scales}, true, 1, "_upsample_nearest_exact1d",
                 "UpsampleNearestExact1DBackward0");
}
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest(self, output_size, {scales_h, scales_w}, true, 2, "_upsample_nearest_exact2d",
                 "UpsampleNearestExact2DBackward0");
}
Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_d, std::optional<double> scales_h,
                                 std::optional<double> scales_w) {
  return nearest(self, output_size, {scales_d, scales_h, scales_w}, true, 3,
                 "_upsample_nearest_exact3d", "UpsampleNearestExact3DBackward0");
}
Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                         std::optional<double> scales) {
  return detail::upsample(self, ResampleMode::Linear, 1, output_size, {scales}, align_corners,
                          false, "upsample_linear1d", "UpsampleLinear1DBackward0");
}
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return detail::upsample(self, ResampleMode::Linear, 2, output_size, {scales_h, scales_w},
                          align_corners, false, "upsample_bilinear2d",
                          "UpsampleBilinear2DBackward0");
}
Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return detail::upsample(self, ResampleMode::Cubic, 2, output_size, {scales_h, scales_w},
                          align_corners, false, "upsample_bicubic2d", "UpsampleBicubic2DBackward0");
}
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                            std::optional<double> scales_d, std::optional<double> scales_h,
                            std::optional<double> scales_w) {
  return detail::upsample(self, ResampleMode::Linear, 3, output_size,
                          {scales_d, scales_h, scales_w}, align_corners, false,
                          "upsample_trilinear3d", "UpsampleTrilinear3DBackward0");
}
Tensor _upsample_bilinear2d_aa(const Tensor& self, IntArrayRef output_size, bool align_corners,
                               std::optional<double> scales_h, std::optional<double> scales_w) {
  return detail::upsample(self, ResampleMode::Linear, 2, output_size, {scales_h, scales_w},
                          align_corners, true, "_upsample_bilinear2d_aa",
                          "UpsampleBilinear2DAaBackward0");
}
Tensor _upsample_bicubic2d_aa(const Tensor& self, IntArrayRef output_size, bool align_corners,
                              std::optional<double> scales_h, std::optional<double> scales_w) {
  return detail::upsample(self, ResampleMode::Cubic, 2, output_size, {scales_h, scales_w},
                          align_corners, true, "_upsample_bicubic2d_aa",
                          "UpsampleBicubic2DAaBackward0");
}

}  // namespace ember
