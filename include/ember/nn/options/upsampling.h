// Options of Upsample and F::interpolate, as LibTorch's torch/nn/options/upsampling.h:
//   nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2})
//                       .mode(ember::kBilinear).align_corners(false));
//   F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{7, 9})
//                         .mode(ember::kBicubic).align_corners(true));
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "ember/core/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn {

/// Options of Upsample: exactly one of size and scale_factor.
struct UpsampleOptions {
  /// The output's spatial sizes (one per spatial dim, or one for all).
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  /// The multiplier of each spatial size (one per spatial dim, or one for all).
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear>;
  /// The interpolation (linear for 3-D input, bilinear/bicubic for 4-D, trilinear for 5-D).
  EMBER_ARG(mode_t, mode) = ember::kNearest;
  /// Linear modes: whether the corner pixels' centres of input and output coincide (unset:
  /// false). Must stay unset for nearest.
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {

/// Options of F::interpolate: exactly one of size and scale_factor.
struct InterpolateFuncOptions {
  using mode_t =
      std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                   enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  /// The output's spatial sizes (one per spatial dim, or one for all).
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  /// The multiplier of each spatial size (one per spatial dim, or one for all).
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  /// kNearest (floor(dst·in/out)), kNearestExact (pixel centres), kLinear (3-D input),
  /// kBilinear / kBicubic (4-D), kTrilinear (5-D), kArea (adaptive average pooling).
  EMBER_ARG(mode_t, mode) = ember::kNearest;
  /// Linear and cubic modes only: align the corner pixels' centres (unset: false).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  /// With scale_factor: compute the output size from it and then map coordinates by the sizes
  /// (true), or map them by 1/scale_factor (unset or false). Meaningless with size.
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  /// kBilinear and kBicubic on 4-D input: widen the filter when shrinking so that every input
  /// pixel contributes (as PIL's resize).
  EMBER_ARG(bool, antialias) = false;
};

}  // namespace functional
}  // namespace ember::nn
