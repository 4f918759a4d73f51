// Options of F::grid_sample, as LibTorch's torch/nn/options/vision.h (F::affine_grid takes its
// arguments directly):
//   F::grid_sample(x, grid, F::GridSampleFuncOptions().mode(ember::kNearest)
//                               .padding_mode(ember::kBorder).align_corners(true));
#pragma once

#include <optional>
#include <variant>

#include "ember/core/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn::functional {

/// Options of F::grid_sample.
struct GridSampleFuncOptions {
  /// kBicubic (4-D input only) goes beyond LibTorch 1.13's variant, as PyTorch's Python has it.
  using mode_t = std::variant<enumtype::kBilinear, enumtype::kNearest, enumtype::kBicubic>;
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kBorder, enumtype::kReflection>;
  /// How to interpolate between input pixels.
  EMBER_ARG(mode_t, mode) = ember::kBilinear;
  /// What grid points outside [-1, 1] read: zeros, the border pixel, or the reflected position.
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
  /// Whether -1 and 1 name the corner pixels' centres (true) or their outer edges (unset: false).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace ember::nn::functional
