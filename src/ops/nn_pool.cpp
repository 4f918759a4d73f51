// The ATen-style pooling functions: argument checks (with PyTorch's rules and informative
// messages), unbatched inputs, output sizes; the work is in the primitives of nn_pool_core.cpp.
#include "ember/ops/nn_pool.h"

#include <algorithm>
#include <array>
#include <string>

#include "src/core/check.h"
#include "src/ops/nn_pool_core.h"

namespace ember {
namespace {

using pool::PoolSpec;

std::string pool_spatial_text(const Tensor& t, int nd) {
  std::string s;
  for (int64_t d = t.dim() - nd; d < t.dim(); ++d)
    s += (d > t.dim() - nd ? "x" : "") + std::to_string(t.size(d));
  return s;
}

// Checks self's dtype and rank and returns it batched: (N, C, *spatial).
Tensor pool_batched(const char* op, const Tensor& self, int nd, bool* unbatched) {
  EMBER_CHECK(self.defined(), "{}: input is an undefined tensor. Hint: pass a tensor", op);
  EMBER_CHECK_TYPE(self.is_floating_point(),
                   "{}: expected a floating input, but got {} {}. Hint: convert it with "
                   ".to(ember::kFloat)",
                   op, self.sizes(), self.dtype());
  const int64_t r = self.dim();
  EMBER_CHECK(r == nd + 1 || r == nd + 2,
              "{}: expected a {}-D (unbatched) or {}-D (batched) input, but got a {}-D input {}",
              op, nd + 1, nd + 2, r, self.sizes());
  for (int64_t d = r - nd - 1; d < r; ++d)
    EMBER_CHECK(self.size(d) > 0,
                "{}: expected an input with non-zero sizes in every dim but the batch dim, but "
                "got {}",
                op, self.sizes());
  *unbatched = r == nd + 1;
  return *unbatched ? self.unsqueeze(0) : self;
}

// An int-list argument given as one value or nd values, right-aligned into D, H, W slots.
std::array<int64_t, kPoolMaxDims> pool_arg(const char* op, const char* name, IntArrayRef v, int nd,
                                           int64_t fill) {
  EMBER_CHECK_VALUE(v.size() == 1 || static_cast<int>(v.size()) == nd,
                    "{}: {} must be a single int or a list of {} ints, but got {}", op, name, nd,
                    v);
  std::array<int64_t, kPoolMaxDims> out{fill, fill, fill};
  for (int i = 0; i < nd; ++i) out[kPoolMaxDims - nd + i] = v.size() == 1 ? v[0] : v[i];
  return out;
}

// "[a, b]": the nd used values of a right-aligned argument, for messages.
std::string pool_list(const std::array<int64_t, kPoolMaxDims>& a, int nd) {
  return fmt::format("[{}]", fmt::join(a.end() - nd, a.end(), ", "));
}

// floor(a / b) for b > 0.
int64_t pool_floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// PyTorch's pooling_output_shape: with ceil_mode the last window must start inside the input or
// its left padding.
int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = pool_floor_div(span, s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

PoolSpec pool_window_spec(const char* op, const Tensor& x, int nd, IntArrayRef kernel_size,
                          IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                          bool ceil_mode) {
  const auto k = pool_arg(op, "kernel_size", kernel_size, nd, 1);
  const auto s = stride.empty() ? k : pool_arg(op, "stride", stride, nd, 1);
  const auto p = pool_arg(op, "padding", padding, nd, 0);
  const auto d = pool_arg(op, "dilation", dilation, nd, 1);
  PoolSpec spec;
  spec.nd = nd;
  const int first = kPoolMaxDims - nd;
  for (int i = first; i < kPoolMaxDims; ++i) {
    EMBER_CHECK_VALUE(k[i] > 0, "{}: kernel_size must be greater than zero, but got {}", op,
                      pool_list(k, nd));
    EMBER_CHECK_VALUE(s[i] > 0, "{}: stride must be greater than zero, but got {}", op,
                      pool_list(s, nd));
    EMBER_CHECK_VALUE(d[i] > 0, "{}: dilation must be greater than zero, but got {}", op,
                      pool_list(d, nd));
    EMBER_CHECK_VALUE(p[i] >= 0 && p[i] <= k[i] / 2,
                      "{}: padding should be at most half of kernel_size, but got padding {} "
                      "and kernel_size {}",
                      op, pool_list(p, nd), pool_list(k, nd));
  }
  std::array<int64_t, kPoolMaxDims> out{1, 1, 1};
  bool empty_out = false;
  for (int i = first; i < kPoolMaxDims; ++i) {
    const int64_t in = x.size(2 + i - first);
    out[i] = pool_output_size(in, k[i], s[i], p[i], d[i], ceil_mode);
    empty_out = empty_out || out[i] < 1;
  }
  if (empty_out) {
    std::array<int64_t, kPoolMaxDims> clipped{};
    for (int i = 0; i < kPoolMaxDims; ++i) clipped[i] = std::max<int64_t>(out[i], 0);
    const std::string out_list = pool_list(clipped, nd);
    std::array<int64_t, kPoolMaxDims> eff{};
    for (int i = 0; i < kPoolMaxDims; ++i) eff[i] = (k[i] - 1) * d[i] + 1;
    EMBER_CHECK(false,
                "{}: output size would be empty: an input of spatial size {} gives {} with "
                "kernel_size {} (dilated: {}), stride {}, padding {}. Hint: the dilated kernel "
                "must fit in the padded input",
                op, pool_spatial_text(x, nd), out_list, pool_list(k, nd), pool_list(eff, nd),
                pool_list(s, nd), pool_list(p, nd));
  }
  for (int i = 0; i < kPoolMaxDims; ++i) {
    spec.kernel[i] = k[i];
    spec.stride[i] = s[i];
    spec.pad[i] = p[i];
    spec.dilation[i] = d[i];
    spec.out[i] = out[i];
  }
  return spec;
}

const char* const kMaxPoolNodes[] = {"MaxPool1DWithIndicesBackward0",
                                     "MaxPool2DWithIndicesBackward0",
                                     "MaxPool3DWithIndicesBackward0"};
const char* const kAvgPoolNodes[] = {"AvgPool1DBackward0", "AvgPool2DBackward0",
                                     "AvgPool3DBackward0"};
const char* const kAdaptiveAvgNodes[] = {"AdaptiveAvgPool1DBackward0", "AdaptiveAvgPool2DBackward0",
                                         "AdaptiveAvgPool3DBackward0"};
const char* const kAdaptiveMaxNodes[] = {"AdaptiveMaxPool1DBackward0", "AdaptiveMaxPool2DBackward0",
                                         "AdaptiveMaxPool3DBackward0"};

std::tuple<Tensor, Tensor> pool_unbatch(std::tuple<Tensor, Tensor> r, bool unbatched) {
  if (!unbatched) return r;
  const Tensor& i = std::get<1>(r);
  return {std::get<0>(r).squeeze(0), i.defined() ? i.squeeze(0) : i};
}

std::tuple<Tensor, Tensor> max_pool_nd(const char* op, int nd, const Tensor& self,
                                       IntArrayRef kernel_size, IntArrayRef stride,
                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                       bool need_indices = true) {
  bool unbatched = false;
  const Tensor x = pool_batched(op, self, nd, &unbatched);
  const PoolSpec s = pool_window_spec(op, x, nd, kernel_size, stride, padding, dilation, ceil_mode);
  return pool_unbatch(pool::max_pool(kMaxPoolNodes[nd - 1], x, s, need_indices), unbatched);
}

Tensor avg_pool_nd(const char* op, int nd, const Tensor& self, IntArrayRef kernel_size,
                   IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                   std::optional<int64_t> divisor_override) {
  bool unbatched = false;
  const Tensor x = pool_batched(op, self, nd, &unbatched);
  PoolSpec s = pool_window_spec(op, x, nd, kernel_size, stride, padding, 1, ceil_mode);
  if (divisor_override) {
    EMBER_CHECK_VALUE(*divisor_override != 0,
                      "{}: divisor_override must not be zero. Hint: pass std::nullopt to divide "
                      "by the window size",
                      op);
    s.divisor_override = *divisor_override;
  }
  s.count_include_pad = count_include_pad;
  Tensor y = pool::avg_pool(kAvgPoolNodes[nd - 1], x, s);
  return unbatched ? y.squeeze(0) : y;
}

PoolSpec pool_adaptive_spec(const char* op, int nd, IntArrayRef output_size) {
  EMBER_CHECK_VALUE(static_cast<int>(output_size.size()) == nd,
                    "{}: output_size must have {} elements, but got {}", op, nd, output_size);
  PoolSpec s;
  s.nd = nd;
  s.adaptive = true;
  for (int i = 0; i < nd; ++i) {
    EMBER_CHECK_VALUE(output_size[i] >= 0,
                      "{}: elements of output_size must be non-negative, but got {}", op,
                      output_size);
    s.out[kPoolMaxDims - nd + i] = output_size[i];
  }
  return s;
}

Tensor adaptive_avg_nd(const char* op, int nd, const Tensor& self, IntArrayRef output_size) {
  bool unbatched = false;
  const Tensor x = pool_batched(op, self, nd, &unbatched);
  Tensor y = pool::avg_pool(kAdaptiveAvgNodes[nd - 1], x, pool_adaptive_spec(op, nd, output_size));
  return unbatched ? y.squeeze(0) : y;
}

std::tuple<Tensor, Tensor> adaptive_max_nd(const char* op, int nd, const Tensor& self,
                                           IntArrayRef output_size) {
  bool unbatched = false;
  const Tensor x = pool_batched(op, self, nd, &unbatched);
  return pool_unbatch(
      pool::max_pool(kAdaptiveMaxNodes[nd - 1], x, pool_adaptive_spec(op, nd, output_size)),
      unbatched);
}

Tensor max_unpool_nd(const char* op, int nd, const Tensor& self, const Tensor& indices,
                     IntArrayRef output_size) {
  bool unbatched = false;
  const Tensor x = pool_batched(op, self, nd, &unbatched);
  EMBER_CHECK(indices.defined(), "{}: indices is an undefined tensor", op);
  EMBER_CHECK_TYPE(indices.dtype() == kLong,
                   "{}: indices must be int64, but got {}. Hint: pass the indices of "
                   "max_pool{}d_with_indices",
                   op, indices.dtype(), nd);
  EMBER_CHECK(indices.sizes() == self.sizes(), "{}: indices {} must have the shape of the input {}",
              op, indices.sizes(), self.sizes());
  EMBER_CHECK(indices.device() == self.device(),
              "{}: indices are on {} but the input is on {}. Hint: move both to one device", op,
              indices.device(), self.device());
  EMBER_CHECK_VALUE(static_cast<int>(output_size.size()) == nd,
                    "{}: output_size must have {} elements (the output's spatial size), but got {}",
                    op, nd, output_size);
  DimVector sizes{x.size(0), x.size(1)};
  for (int64_t v : output_size) {
    EMBER_CHECK_VALUE(v >= 0, "{}: elements of output_size must be non-negative, but got {}", op,
                      output_size);
    sizes.push_back(v);
  }
  const Tensor idx = unbatched ? indices.unsqueeze(0) : indices;
  Tensor y = pool::pool_scatter(op, x, idx, sizes, /*assign=*/true);
  return unbatched ? y.squeeze(0) : y;
}

std::tuple<Tensor, Tensor> fractional_nd(const char* op, int nd, const Tensor& self,
                                         IntArrayRef kernel_size, IntArrayRef output_size,
                                         const Tensor& random_samples) {
  bool unbatched = false;
  const Tensor x = pool_batched(op, self, nd, &unbatched);
  const auto k = pool_arg(op, "kernel_size", kernel_size, nd, 1);
  const auto o = pool_arg(op, "output_size", output_size, nd, 1);
  int64_t kk[kPoolMaxDims], oo[kPoolMaxDims];
  for (int i = 0; i < nd; ++i) {
    kk[i] = k[kPoolMaxDims - nd + i];
    oo[i] = o[kPoolMaxDims - nd + i];
    const int64_t in = x.size(2 + i);
    EMBER_CHECK_VALUE(kk[i] > 0, "{}: kernel_size must be greater than zero, but got {}", op,
                      pool_list(k, nd));
    EMBER_CHECK_VALUE(oo[i] > 0, "{}: output_size must be greater than zero, but got {}", op,
                      pool_list(o, nd));
    EMBER_CHECK_VALUE(oo[i] + kk[i] - 1 <= in,
                      "{}: kernel_size {} is too large for the input size {} and output_size {} "
                      "along spatial dim {} (output_size + kernel_size - 1 must be at most the "
                      "input size)",
                      op, kk[i], in, oo[i], i);
  }
  EMBER_CHECK(random_samples.defined(), "{}: random_samples is an undefined tensor", op);
  const std::vector<int64_t> want{x.size(0), x.size(1), nd};
  EMBER_CHECK(random_samples.sizes() == IntArrayRef(want),
              "{}: random_samples must have shape {} ([N, C, {}]), but got {}", op,
              IntArrayRef(want), nd, random_samples.sizes());
  EMBER_CHECK_TYPE(random_samples.dtype() == self.dtype(),
                   "{}: random_samples must have the input's dtype {}, but got {}", op,
                   self.dtype(), random_samples.dtype());
  EMBER_CHECK(random_samples.device() == self.device(),
              "{}: random_samples are on {} but the input is on {}. Hint: move both to one device",
              op, random_samples.device(), self.device());
  // The kernel turns each sample into window starts: a value outside [0, 1) (or NaN) would put a
  // window outside the input.
  EMBER_CHECK_VALUE(random_samples.numel() == 0 || (random_samples.ge(0).all().item<bool>() &&
                                                    random_samples.lt(1).all().item<bool>()),
                    "{}: random_samples must lie in [0, 1)", op);
  const char* node = nd == 2 ? "FractionalMaxPool2DBackward0" : "FractionalMaxPool3DBackward0";
  return pool_unbatch(pool::fractional_max_pool(node, x, nd, kk, oo, random_samples), unbatched);
}

}  // namespace

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool_nd("max_pool1d", 1, self, kernel_size, stride, padding, dilation,
                                 ceil_mode,
                                 /*need_indices=*/false));
}
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool_nd("max_pool2d", 2, self, kernel_size, stride, padding, dilation,
                                 ceil_mode,
                                 /*need_indices=*/false));
}
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool_nd("max_pool3d", 3, self, kernel_size, stride, padding, dilation,
                                 ceil_mode,
                                 /*need_indices=*/false));
}
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd("max_pool1d_with_indices", 1, self, kernel_size, stride, padding, dilation,
                     ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd("max_pool2d_with_indices", 2, self, kernel_size, stride, padding, dilation,
                     ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd("max_pool3d_with_indices", 3, self, kernel_size, stride, padding, dilation,
                     ceil_mode);
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  return avg_pool_nd("avg_pool1d", 1, self, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, std::nullopt);
}
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return avg_pool_nd("avg_pool2d", 2, self, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override);
}
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return avg_pool_nd("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_nd("adaptive_avg_pool1d", 1, self, output_size);
}
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_nd("adaptive_avg_pool2d", 2, self, output_size);
}
Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_nd("adaptive_avg_pool3d", 3, self, output_size);
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_nd("adaptive_max_pool1d", 1, self, output_size);
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_nd("adaptive_max_pool2d", 2, self, output_size);
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_nd("adaptive_max_pool3d", 3, self, output_size);
}

Tensor max_unpool1d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return max_unpool_nd("max_unpool1d", 1, self, indices, output_size);
}
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return max_unpool_nd("max_unpool2d", 2, self, indices, output_size);
}
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                    IntArrayRef stride, IntArrayRef padding) {
  const auto s = pool_arg("max_unpool3d", "stride", stride, 3, 1);
  const auto p = pool_arg("max_unpool3d", "padding", padding, 3, 0);
  for (int i = 0; i < kPoolMaxDims; ++i) {
    EMBER_CHECK_VALUE(s[i] > 0, "max_unpool3d: stride must be greater than zero, but got {}",
                      stride);
    EMBER_CHECK_VALUE(p[i] >= 0, "max_unpool3d: padding must be non-negative, but got {}", padding);
  }
  return max_unpool_nd("max_unpool3d", 3, self, indices, output_size);
}

std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return fractional_nd("fractional_max_pool2d", 2, self, kernel_size, output_size, random_samples);
}
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return fractional_nd("fractional_max_pool3d", 3, self, kernel_size, output_size, random_samples);
}

}  // namespace ember
