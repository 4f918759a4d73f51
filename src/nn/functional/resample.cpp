// F::interpolate: PyTorch's argument rules (torch/nn/functional.py, interpolate) and the choice of
// upsampling function by mode and rank; the work is in src/ops/nn_resample_upsample.cpp.
#include <cmath>
#include <string>

#include "ember/nn/functional/upsampling.h"
#include "ember/ops/nn_resample.h"
#include "src/core/check.h"
#include "src/ops/nn_resample_impl.h"

namespace ember::nn::functional {
namespace {

using ember::detail::UpsampleScales;
using ResampleMode = UpsampleParams::Mode;

// "bilinear", as PyTorch's Python names the mode.
std::string interpolate_mode_name(const InterpolateFuncOptions::mode_t& mode) {
  return std::visit(
      [](const auto& tag) -> std::string {
        using T = std::decay_t<decltype(tag)>;
        if constexpr (std::is_same_v<T, enumtype::kNearest>) return "nearest";
        if constexpr (std::is_same_v<T, enumtype::kLinear>) return "linear";
        if constexpr (std::is_same_v<T, enumtype::kBilinear>) return "bilinear";
        if constexpr (std::is_same_v<T, enumtype::kBicubic>) return "bicubic";
        if constexpr (std::is_same_v<T, enumtype::kTrilinear>) return "trilinear";
        if constexpr (std::is_same_v<T, enumtype::kArea>) return "area";
        return "nearest-exact";
      },
      mode);
}

// One value per spatial dim: a single value applies to every dim.
template <class T>
std::vector<T> per_dim(const std::vector<T>& v, int dims, const char* what, const Tensor& input) {
  EMBER_CHECK(static_cast<int>(v.size()) == dims || v.size() == 1,
              "interpolate: {} must have 1 or {} elements (one per spatial dim of input {}), but "
              "got {} elements",
              what, dims, input.sizes(), v.size());
  return v.size() == 1 ? std::vector<T>(static_cast<size_t>(dims), v[0]) : v;
}

const char* const kRankShapes[] = {"[N, C, W]", "[N, C, H, W]", "[N, C, D, H, W]"};

}  // namespace

namespace detail {

Tensor interpolate(const Tensor& input, const std::optional<std::vector<int64_t>>& size,
                   const std::optional<std::vector<double>>& scale_factor,
                   InterpolateFuncOptions::mode_t mode, std::optional<bool> align_corners,
                   std::optional<bool> recompute_scale_factor, bool antialias) {
  EMBER_CHECK(input.defined(), "interpolate: input is an undefined tensor");
  EMBER_CHECK(input.dim() >= 3 && input.dim() <= 5,
              "interpolate: expected a 3-D, 4-D or 5-D input [N, C, *spatial], but got a {}-D "
              "input {}",
              input.dim(), input.sizes());
  const int dims = static_cast<int>(input.dim()) - 2;
  const std::string name = interpolate_mode_name(mode);
  const bool nearest_like = std::holds_alternative<enumtype::kNearest>(mode) ||
                            std::holds_alternative<enumtype::kNearestExact>(mode) ||
                            std::holds_alternative<enumtype::kArea>(mode);
  EMBER_CHECK_VALUE(!(nearest_like && align_corners.has_value()),
                    "interpolate: align_corners can only be set with the interpolating modes "
                    "linear | bilinear | bicubic | trilinear, but got mode {} with "
                    "align_corners={}",
                    name, align_corners.value_or(false));
  EMBER_CHECK_VALUE(size.has_value() != scale_factor.has_value(),
                    "interpolate: exactly one of size and scale_factor must be given, but got {}",
                    size ? "both" : "neither");
  EMBER_CHECK_VALUE(!(size && recompute_scale_factor.value_or(false)),
                    "interpolate: recompute_scale_factor is not meaningful with an explicit size");
  const bool two_d_filter = std::holds_alternative<enumtype::kBilinear>(mode) ||
                            std::holds_alternative<enumtype::kBicubic>(mode);
  EMBER_CHECK_VALUE(!antialias || (two_d_filter && dims == 2),
                    "interpolate: antialias is only supported for the bilinear and bicubic modes "
                    "on 4-D input, but got mode {} with a {}-D input {}",
                    name, input.dim(), input.sizes());
  int want = 0;  // the spatial dims the mode needs (0: any)
  if (std::holds_alternative<enumtype::kLinear>(mode)) want = 1;
  if (two_d_filter) want = 2;
  if (std::holds_alternative<enumtype::kTrilinear>(mode)) want = 3;
  EMBER_CHECK(want == 0 || want == dims,
              "interpolate: mode {} expects a {}-D input {}, but got a {}-D input {}", name,
              want + 2, want ? kRankShapes[want - 1] : "", input.dim(), input.sizes());

  std::vector<int64_t> out;
  UpsampleScales scales;
  if (size) {
    out = per_dim(*size, dims, "size", input);
  } else {
    const std::vector<double> sf = per_dim(*scale_factor, dims, "scale_factor", input);
    // Area mode always maps by sizes (it is adaptive pooling), as does recompute_scale_factor.
    const bool recompute =
        recompute_scale_factor.value_or(false) || std::holds_alternative<enumtype::kArea>(mode);
    for (int d = 0; d < dims; ++d) {
      out.push_back(static_cast<int64_t>(
          std::floor(static_cast<double>(input.size(2 + d)) * sf[static_cast<size_t>(d)])));
      if (!recompute) scales[static_cast<size_t>(d)] = sf[static_cast<size_t>(d)];
    }
  }
  const bool align = align_corners.value_or(false);
  const auto& s = scales;
  if (std::holds_alternative<enumtype::kNearest>(mode)) {
    if (dims == 1) return upsample_nearest1d(input, out, s[0]);
    if (dims == 2) return upsample_nearest2d(input, out, s[0], s[1]);
    return upsample_nearest3d(input, out, s[0], s[1], s[2]);
  }
  if (std::holds_alternative<enumtype::kNearestExact>(mode)) {
    if (dims == 1) return _upsample_nearest_exact1d(input, out, s[0]);
    if (dims == 2) return _upsample_nearest_exact2d(input, out, s[0], s[1]);
    return _upsample_nearest_exact3d(input, out, s[0], s[1], s[2]);
  }
  if (std::holds_alternative<enumtype::kArea>(mode)) {
    const char* ops[] = {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"};
    const char* nodes[] = {"AdaptiveAvgPool1DBackward0", "AdaptiveAvgPool2DBackward0",
                           "AdaptiveAvgPool3DBackward0"};
    return ember::detail::upsample(input, ResampleMode::Area, dims, out, {}, false, false,
                                   ops[dims - 1], nodes[dims - 1]);
  }
  if (std::holds_alternative<enumtype::kLinear>(mode))
    return upsample_linear1d(input, out, align, s[0]);
  if (std::holds_alternative<enumtype::kTrilinear>(mode))
    return upsample_trilinear3d(input, out, align, s[0], s[1], s[2]);
  if (std::holds_alternative<enumtype::kBilinear>(mode))
    return antialias ? _upsample_bilinear2d_aa(input, out, align, s[0], s[1])
                     : upsample_bilinear2d(input, out, align, s[0], s[1]);
  return antialias ? _upsample_bicubic2d_aa(input, out, align, s[0], s[1])
                   : upsample_bicubic2d(input, out, align, s[0], s[1]);
}

}  // namespace detail

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  return detail::interpolate(input, options.size(), options.scale_factor(), options.mode(),
                             options.align_corners(), options.recompute_scale_factor(),
                             options.antialias());
}

}  // namespace ember::nn::functional
