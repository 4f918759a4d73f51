// nn op table entries of the resample functionals (golden family "nn_resample"; the layout of
// each op's record is documented in tests/golden/gen/nn_resample.py). The op names group the
// cases by mode, so that each mode gets its own float64 gradcheck.
#include "ember/nn/functional/upsampling.h"
#include "ember/nn/functional/vision.h"
#include "tests/nn/nn_op_info.h"

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;
using ember_test::NnOpInfo;

namespace {

const char* const kResampleFamily = "nn_resample";

std::optional<bool> resample_align(const GoldenCase& c) {
  if (c.has_flag("align")) return true;
  if (c.has_flag("noalign")) return false;
  return std::nullopt;
}

// The input as the case passes it: a channels-last copy when flagged (still differentiable).
Tensor resample_input(const Tensor& x, const GoldenCase& c) {
  if (!c.has_flag("channels_last")) return x;
  return x.contiguous(x.dim() == 4 ? ember::MemoryFormat::ChannelsLast
                                   : ember::MemoryFormat::ChannelsLast3d);
}

F::InterpolateFuncOptions::mode_t interpolate_mode(const std::string& s) {
  if (s == "nearest") return ember::kNearest;
  if (s == "nearest-exact") return ember::kNearestExact;
  if (s == "linear") return ember::kLinear;
  if (s == "bilinear") return ember::kBilinear;
  if (s == "bicubic") return ember::kBicubic;
  if (s == "trilinear") return ember::kTrilinear;
  return ember::kArea;
}

NnOpInfo interpolate_entry(const char* name) {
  return nn_op(name, kResampleFamily, {0}, [](const Args& a, const GoldenCase& c) {
    F::InterpolateFuncOptions o;
    o.mode(interpolate_mode(c.strs.at(0)));
    if (c.has_flag("size"))
      o.size(c.int_lists.at(0));
    else
      o.scale_factor(c.scalars);
    o.align_corners(resample_align(c));
    if (c.has_flag("recompute")) o.recompute_scale_factor(true);
    o.antialias(c.has_flag("antialias"));
    return F::interpolate(resample_input(a[0], c), o);
  });
}

NnOpInfo grid_sample_entry(const char* name) {
  return nn_op(name, kResampleFamily, {0, 1}, [](const Args& a, const GoldenCase& c) {
    F::GridSampleFuncOptions o;
    const std::string& m = c.strs.at(0);
    if (m == "bilinear") o.mode(ember::kBilinear);
    if (m == "nearest") o.mode(ember::kNearest);
    if (m == "bicubic") o.mode(ember::kBicubic);
    const std::string& p = c.strs.at(1);
    if (p == "zeros") o.padding_mode(ember::kZeros);
    if (p == "border") o.padding_mode(ember::kBorder);
    if (p == "reflection") o.padding_mode(ember::kReflection);
    o.align_corners(resample_align(c));
    return F::grid_sample(resample_input(a[0], c), a[1], o);
  });
}

}  // namespace

EMBER_NN_OP_FAMILY(resample) {
  return {
      interpolate_entry("interpolate"),
      interpolate_entry("interpolate_nearest_exact"),
      interpolate_entry("interpolate_linear"),
      interpolate_entry("interpolate_bilinear"),
      interpolate_entry("interpolate_bicubic"),
      interpolate_entry("interpolate_trilinear"),
      interpolate_entry("interpolate_area"),
      interpolate_entry("interpolate_antialias"),
      grid_sample_entry("grid_sample"),
      grid_sample_entry("grid_sample_nearest"),
      grid_sample_entry("grid_sample_bicubic"),
      grid_sample_entry("grid_sample_3d"),
      nn_op("affine_grid", kResampleFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::affine_grid(a[0], c.int_lists.at(0), resample_align(c).value_or(false));
            }),
  };
}
