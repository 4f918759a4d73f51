// grid_sampler (F::grid_sample's ATen function) through the `grid_sample` slots, and
// affine_grid_generator, composed of differentiable ops (a matmul of the base grid with thetaᵀ).
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn_resample.h"
#include "ember/ops/shape.h"
#include "kernels/common/resample_params.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace {

void check_grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding,
                        const char* op) {
  EMBER_CHECK(input.defined() && grid.defined(), "{}: input and grid must be defined tensors", op);
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "{}: expected a 4-D input [N, C, H, W] or a 5-D input [N, C, D, H, W], but got a "
              "{}-D input {}",
              op, input.dim(), input.sizes());
  const int64_t dims = input.dim() - 2;
  EMBER_CHECK(grid.dim() == input.dim() && grid.size(-1) == dims,
              "{}: expected grid of shape {} for input {}, but got grid {}. Hint: the grid's last "
              "dim holds the {} coordinates (x, y{}) of each output point",
              op, dims == 2 ? "[N, H_out, W_out, 2]" : "[N, D_out, H_out, W_out, 3]", input.sizes(),
              grid.sizes(), dims, dims == 2 ? "" : ", z");
  EMBER_CHECK(grid.size(0) == input.size(0),
              "{}: expected grid and input to have the same batch size, but got input {} and "
              "grid {}",
              op, input.sizes(), grid.sizes());
  for (int64_t d = 2; d < input.dim(); ++d)
    EMBER_CHECK(input.size(d) > 0,
                "{}: expected input with non-empty spatial dims, but got input {} (dim {} is "
                "empty)",
                op, input.sizes(), d);
  EMBER_CHECK_TYPE(input.is_floating_point() && input.dtype() == grid.dtype(),
                   "{}: expected input and grid of the same floating dtype, but got input {} and "
                   "grid {}",
                   op, input.dtype(), grid.dtype());
  EMBER_CHECK(input.device() == grid.device(),
              "{}: expected input and grid on the same device, but got input on {} and grid on {}",
              op, input.device(), grid.device());
  EMBER_CHECK_VALUE(mode >= 0 && mode <= 2,
                    "{}: interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), but "
                    "got {}",
                    op, mode);
  EMBER_CHECK_VALUE(padding >= 0 && padding <= 2,
                    "{}: padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), but got {}",
                    op, padding);
  EMBER_CHECK(mode != 2 || dims == 2,
              "{}: bicubic interpolation supports 4-D input only, but got a 5-D input {}", op,
              input.sizes());
}

// The params of one call; output/gradient pointers are filled by the caller.
GridSampleParams grid_params(const Tensor& x, const Tensor& grid, const Tensor& out_sized,
                             int64_t mode, int64_t padding, bool align_corners) {
  GridSampleParams p;
  p.mode = static_cast<GridSampleParams::Mode>(mode);
  p.padding = static_cast<GridSampleParams::Padding>(padding);
  p.align_corners = align_corners;
  p.dims = static_cast<int>(x.dim() - 2);
  p.batch = x.size(0);
  p.channels = x.size(1);
  for (int d = 0; d < p.dims; ++d) {
    p.in_size[d] = x.size(2 + d);
    p.out_size[d] = grid.size(1 + d);
  }
  for (int k = 0; k < 2 + p.dims; ++k) {
    p.in_stride[k] = x.stride(k);
    p.out_stride[k] = out_sized.stride(k);
  }
  p.input = x.data_ptr();
  p.grid = grid.data_ptr();
  return p;
}

DimVector grid_output_shape(const Tensor& x, const Tensor& grid) {
  DimVector s{x.size(0), x.size(1)};
  for (int64_t d = 1; d < grid.dim() - 1; ++d) s.push_back(grid.size(d));
  return s;
}

MemoryFormat grid_layout(const Tensor& t) {
  const MemoryFormat mf = t.suggest_memory_format();
  if ((t.dim() == 4 && mf == MemoryFormat::ChannelsLast) ||
      (t.dim() == 5 && mf == MemoryFormat::ChannelsLast3d))
    return mf;
  return MemoryFormat::Contiguous;
}

// grad_input (when wanted) and grad_grid (when wanted) of grid_sampler.
autograd::Grads grid_sampler_backward(const Tensor& grad, const Tensor& x, const Tensor& g,
                                      int64_t mode, int64_t padding, bool align_corners,
                                      MemoryFormat mf, bool want_input, bool want_grid) {
  const Tensor gy = grad.contiguous(mf);
  autograd::Grads out(2);
  if (want_input) out[0] = empty(x.sizes(), x.options(), mf);
  if (want_grid) out[1] = empty(g.sizes(), g.options());
  if (gy.numel() == 0 || x.numel() == 0) {
    for (size_t i = 0; i < 2; ++i)
      if (out[i].defined()) out[i].zero_();
    return out;
  }
  GridSampleParams p = grid_params(x, g, gy, mode, padding, align_corners);
  p.grad_output = gy.data_ptr();
  p.grad_input = want_input ? out[0].data_ptr() : nullptr;
  p.grad_grid = want_grid ? out[1].data_ptr() : nullptr;
  get_kernel<OpId::grid_sample_backward>(x.device().type(), x.dtype())(x.dtype(), p);
  return out;
}

Tensor grid_sampler_impl(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding,
                         bool align_corners, const char* op) {
  check_grid_sampler(input, grid, mode, padding, op);
  autograd::OpRecording rec(input, grid);
  const MemoryFormat mf = grid_layout(input);
  const Tensor x = input.contiguous(mf);
  const Tensor g = grid.contiguous();
  Tensor out = empty(grid_output_shape(x, g), x.options(), mf);
  if (out.numel() > 0) {
    GridSampleParams p = grid_params(x, g, out, mode, padding, align_corners);
    p.output = out.data_ptr();
    get_kernel<OpId::grid_sample>(x.device().type(), x.dtype())(x.dtype(), p);
  }
  if (!rec) return out;
  auto formula = [xs = autograd::save(x), gs = autograd::save(g), mode, padding, align_corners, mf](
                     const Tensor& grad, autograd::NeedsGrad needs) -> autograd::Grads {
    const Tensor x = xs.unpack(), g = gs.unpack();
    autograd::Grads out =
        grid_sampler_backward(grad, x, g, mode, padding, align_corners, mf, needs[0], needs[1]);
    // PyTorch has no derivative of this backward either (double backward through grid_sample is
    // an error there too): with create_graph the gradients carry a node that says so when reached.
    autograd::OpRecording again(grad, x, g);
    if (again)
      for (size_t i = 0; i < 2; ++i)
        if (out[i].defined())
          autograd::record("GridSamplerBackwardBackward0", out[i], autograd::edges_of(grad, x, g),
                           [](const Tensor&) -> autograd::Grads {
                             throw NotImplementedError(
                                 "grid_sampler: the derivative of grid_sampler's backward is not "
                                 "implemented (as in PyTorch): double backward through "
                                 "grid_sample is not supported");
                           });
    return out;
  };
  autograd::record(input.dim() == 4 ? "GridSampler2DBackward0" : "GridSampler3DBackward0", out,
                   autograd::edges_of(input, grid), std::move(formula));
  return out;
}

// -1..1 in `steps` points (pixel centres unless align_corners); one point is 0.
Tensor affine_linspace(int64_t steps, bool align_corners, const TensorOptions& opts) {
  if (steps <= 1) return zeros({std::max<int64_t>(steps, 0)}, opts);
  Tensor r = linspace(-1, 1, steps, opts);
  if (!align_corners) r = r * (static_cast<double>(steps - 1) / static_cast<double>(steps));
  return r;
}

}  // namespace

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                    int64_t padding_mode, bool align_corners) {
  return grid_sampler_impl(input, grid, interpolation_mode, padding_mode, align_corners,
                           "grid_sampler");
}

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  EMBER_CHECK(!input.defined() || input.dim() == 4,
              "grid_sampler_2d: expected a 4-D input [N, C, H, W], but got a {}-D input {}",
              input.dim(), input.sizes());
  return grid_sampler_impl(input, grid, interpolation_mode, padding_mode, align_corners,
                           "grid_sampler_2d");
}

Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  EMBER_CHECK(!input.defined() || input.dim() == 5,
              "grid_sampler_3d: expected a 5-D input [N, C, D, H, W], but got a {}-D input {}",
              input.dim(), input.sizes());
  return grid_sampler_impl(input, grid, interpolation_mode, padding_mode, align_corners,
                           "grid_sampler_3d");
}

Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK(theta.defined(), "affine_grid: theta is an undefined tensor");
  EMBER_CHECK_TYPE(theta.is_floating_point(),
                   "affine_grid: theta must have a floating dtype, but got {}", theta.dtype());
  EMBER_CHECK(size.size() == 4 || size.size() == 5,
              "affine_grid: size must be [N, C, H, W] or [N, C, D, H, W], but got {}", size);
  const bool two_d = size.size() == 4;
  const int64_t rows = two_d ? 2 : 3;
  EMBER_CHECK(
      theta.dim() == 3 && theta.size(0) == size[0] && theta.size(1) == rows &&
          theta.size(2) == rows + 1,
      "affine_grid: expected a batch of {}-D affine matrices of shape [{}, {}, {}] for size "
      "{}, but got theta {}",
      rows, size[0], rows, rows + 1, size, theta.sizes());
  for (size_t d = 2; d < size.size(); ++d)
    EMBER_CHECK_VALUE(size[d] > 0, "affine_grid: the spatial sizes must be positive, but got {}",
                      size);
  const TensorOptions opts = theta.options().requires_grad(false);
  const int64_t D = two_d ? 1 : size[2], H = size[size.size() - 2], W = size.back();
  // base[d, h, w] = (x_w, y_h[, z_d], 1).
  std::vector<Tensor> cols;
  cols.push_back(affine_linspace(W, align_corners, opts).view({1, 1, W, 1}).expand({D, H, W, 1}));
  cols.push_back(affine_linspace(H, align_corners, opts).view({1, H, 1, 1}).expand({D, H, W, 1}));
  if (!two_d)
    cols.push_back(affine_linspace(D, align_corners, opts).view({D, 1, 1, 1}).expand({D, H, W, 1}));
  cols.push_back(ones({D, H, W, 1}, opts));
  const Tensor base = cat(cols, 3).view({1, D * H * W, rows + 1});
  const Tensor grid = matmul(base, theta.transpose(1, 2));  // [N, D·H·W, rows]
  if (two_d) return grid.view({size[0], H, W, 2});
  return grid.view({size[0], D, H, W, 3});
}

}  // namespace ember
