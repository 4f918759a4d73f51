// F::grid_sample and F::affine_grid: PyTorch's argument rules, then grid_sampler and
// affine_grid_generator (src/ops/nn_resample_grid.cpp).
#include "ember/nn/functional/vision.h"
#include "ember/ops/nn_resample.h"
#include "src/core/check.h"

namespace ember::nn::functional {

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  bool positive = true;
  for (int64_t s : size) positive = positive && s > 0;
  EMBER_CHECK_VALUE(positive, "affine_grid: expected a positive output size, but got {}", size);
  return affine_grid_generator(theta, size, align_corners);
}

namespace detail {

Tensor grid_sample(const Tensor& input, const Tensor& grid, GridSampleFuncOptions::mode_t mode,
                   GridSampleFuncOptions::padding_mode_t padding_mode,
                   std::optional<bool> align_corners) {
  // ATen's codes: bilinear 0, nearest 1, bicubic 2; zeros 0, border 1, reflection 2 (the order
  // of the variants).
  return grid_sampler(input, grid, static_cast<int64_t>(mode.index()),
                      static_cast<int64_t>(padding_mode.index()), align_corners.value_or(false));
}

}  // namespace detail

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  return detail::grid_sample(input, grid, options.mode(), options.padding_mode(),
                             options.align_corners());
}

}  // namespace ember::nn::functional
