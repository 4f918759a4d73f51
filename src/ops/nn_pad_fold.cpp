// im2col and col2im (the ops behind F::unfold and F::fold) through the `im2col` / `col2im` kernel
// slots. Each is the other's adjoint, so each records the other as its backward and double
// backward comes for free. float16/bfloat16 columns are summed in float32 and rounded once.
#include <array>
#include <memory>

#include "ember/ops/factory.h"
#include "ember/ops/nn_pad.h"
#include "kernels/common/pad_params.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace {

// The geometry both directions share; batch and the channels come from the tensors.
struct FoldGeometry {
  int64_t height = 0, width = 0;  // the image
  int64_t kh = 1, kw = 1, dh = 1, dw = 1, ph = 0, pw = 0, sh = 1, sw = 1;
  int64_t out_h = 0, out_w = 0;  // the grid of block positions
};

std::array<int64_t, 2> fold_pair(IntArrayRef v, const char* op, const char* what) {
  EMBER_CHECK_VALUE(v.size() == 2, "{}: {} must have 2 values (height, width), but got {}", op,
                    what, v);
  return {v[0], v[1]};
}

FoldGeometry fold_geometry(const char* op, IntArrayRef kernel_size, IntArrayRef dilation,
                           IntArrayRef padding, IntArrayRef stride) {
  FoldGeometry g;
  const auto k = fold_pair(kernel_size, op, "kernel_size");
  const auto d = fold_pair(dilation, op, "dilation");
  const auto p = fold_pair(padding, op, "padding");
  const auto s = fold_pair(stride, op, "stride");
  EMBER_CHECK_VALUE(k[0] > 0 && k[1] > 0,
                    "{}: kernel size should be greater than zero, but got kernel_size=({}, {})", op,
                    k[0], k[1]);
  EMBER_CHECK_VALUE(d[0] > 0 && d[1] > 0,
                    "{}: dilation should be greater than zero, but got dilation=({}, {})", op, d[0],
                    d[1]);
  EMBER_CHECK_VALUE(p[0] >= 0 && p[1] >= 0,
                    "{}: padding should be non-negative, but got padding=({}, {})", op, p[0], p[1]);
  EMBER_CHECK_VALUE(s[0] > 0 && s[1] > 0,
                    "{}: stride should be greater than zero, but got stride=({}, {})", op, s[0],
                    s[1]);
  g.kh = k[0], g.kw = k[1], g.dh = d[0], g.dw = d[1];
  g.ph = p[0], g.pw = p[1], g.sh = s[0], g.sw = s[1];
  return g;
}

// The block grid of an image of the geometry's size (may be <= 0: the callers say why).
void fold_blocks(FoldGeometry& g) {
  g.out_h = (g.height + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.out_w = (g.width + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  if (g.height + 2 * g.ph - g.dh * (g.kh - 1) - 1 < 0) g.out_h = 0;
  if (g.width + 2 * g.pw - g.dw * (g.kw - 1) - 1 < 0) g.out_w = 0;
}

Im2ColParams fold_params(const FoldGeometry& g, int64_t batch, int64_t channels, const void* src,
                         void* dst) {
  Im2ColParams p;
  p.src = src;
  p.dst = dst;
  p.batch = batch;
  p.channels = channels;
  p.height = g.height;
  p.width = g.width;
  p.kh = g.kh, p.kw = g.kw, p.dh = g.dh, p.dw = g.dw;
  p.ph = g.ph, p.pw = g.pw, p.sh = g.sh, p.sw = g.sw;
  p.out_h = g.out_h;
  p.out_w = g.out_w;
  return p;
}

bool fold_low_precision(ScalarType t) { return t == kHalf || t == kBFloat16; }

Tensor fold_col2im(const Tensor& cols, const FoldGeometry& g);

// image [B, C, H, W] (contiguous or not) -> cols [B, C·kh·kw, L]; records col2im as backward.
Tensor fold_im2col(const Tensor& image, const FoldGeometry& g) {
  autograd::OpRecording rec(image);
  const Tensor x = image.contiguous();
  const int64_t b = x.size(0), c = x.size(1);
  Tensor cols = empty({b, c * g.kh * g.kw, g.out_h * g.out_w}, x.options());
  if (cols.numel() > 0) {
    const Im2ColParams p = fold_params(g, b, c, x.data_ptr(), cols.data_ptr());
    get_kernel<OpId::im2col>(x.device().type(), x.dtype())(x.dtype(), p);
  }
  if (rec)
    autograd::record("Im2ColBackward0", cols, autograd::edges_of(image),
                     [g](const Tensor& grad) { return fold_col2im(grad, g); });
  return cols;
}

// cols [B, C·kh·kw, L] -> image [B, C, H, W]; records im2col as backward.
Tensor fold_col2im(const Tensor& cols, const FoldGeometry& g) {
  autograd::OpRecording rec(cols);
  const bool low = fold_low_precision(cols.dtype());
  const Tensor x = low ? cols.to(kFloat).contiguous() : cols.contiguous();
  const int64_t b = x.size(0), c = x.size(1) / (g.kh * g.kw);
  Tensor image = empty({b, c, g.height, g.width}, x.options());
  if (image.numel() > 0) {
    const Im2ColParams p = fold_params(g, b, c, x.data_ptr(), image.data_ptr());
    get_kernel<OpId::col2im>(x.device().type(), x.dtype())(x.dtype(), p);
  }
  if (low) image = image.to(cols.dtype());
  if (rec)
    autograd::record("Col2ImBackward0", image, autograd::edges_of(cols),
                     [g](const Tensor& grad) { return fold_im2col(grad, g); });
  return image;
}

}  // namespace

Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  EMBER_CHECK(self.defined(), "im2col: input is an undefined tensor. Hint: pass a tensor");
  FoldGeometry g = fold_geometry("im2col", kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 4;
  EMBER_CHECK_VALUE(self.dim() == 3 || batched,
                    "im2col: expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, but got input {} "
                    "of {} dims",
                    self.sizes(), self.dim());
  for (int64_t d = batched ? 1 : 0; d < self.dim(); ++d)
    EMBER_CHECK_VALUE(self.size(d) > 0,
                      "im2col: expected an input with non-zero sizes outside the batch dim, but "
                      "got input {}",
                      self.sizes());
  g.height = self.size(self.dim() - 2);
  g.width = self.size(self.dim() - 1);
  fold_blocks(g);
  EMBER_CHECK_VALUE(g.out_h >= 1 && g.out_w >= 1,
                    "im2col: given input with spatial size ({}, {}), kernel_size=({}, {}), "
                    "dilation=({}, {}), padding=({}, {}), the array of sliding blocks would be "
                    "empty: its size must be at least one in each dim",
                    g.height, g.width, g.kh, g.kw, g.dh, g.dw, g.ph, g.pw);
  const Tensor x = batched ? self : self.unsqueeze(0);
  const Tensor cols = fold_im2col(x, g);
  return batched ? cols : cols.squeeze(0);
}

Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  EMBER_CHECK(self.defined(), "col2im: input is an undefined tensor. Hint: pass a tensor");
  FoldGeometry g = fold_geometry("col2im", kernel_size, dilation, padding, stride);
  const auto out = fold_pair(output_size, "col2im", "output_size");
  EMBER_CHECK_VALUE(out[0] > 0 && out[1] > 0,
                    "col2im: output_size should be greater than zero, but got output_size=({}, {})",
                    out[0], out[1]);
  const bool batched = self.dim() == 3;
  EMBER_CHECK_VALUE(self.dim() == 2 || batched,
                    "col2im: expected a 2-D [C·kh·kw, L] or 3-D [N, C·kh·kw, L] input, but got "
                    "input {} of {} dims",
                    self.sizes(), self.dim());
  for (int64_t d = batched ? 1 : 0; d < self.dim(); ++d)
    EMBER_CHECK_VALUE(self.size(d) > 0,
                      "col2im: expected an input with non-zero sizes outside the batch dim, but "
                      "got input {}",
                      self.sizes());
  const int64_t planes = self.size(self.dim() - 2), blocks = self.size(self.dim() - 1);
  EMBER_CHECK_VALUE(planes % (g.kh * g.kw) == 0,
                    "col2im: expected size of input's dimension {} to be divisible by the product "
                    "of kernel_size, but got input.size({})={} and kernel_size=({}, {})",
                    self.dim() - 2, self.dim() - 2, planes, g.kh, g.kw);
  g.height = out[0];
  g.width = out[1];
  fold_blocks(g);
  EMBER_CHECK_VALUE(g.out_h >= 1 && g.out_w >= 1,
                    "col2im: given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), "
                    "padding=({}, {}), stride=({}, {}), the array of sliding blocks would be "
                    "({}, {}), which is too small (non-positive)",
                    out[0], out[1], g.kh, g.kw, g.dh, g.dw, g.ph, g.pw, g.sh, g.sw, g.out_h,
                    g.out_w);
  EMBER_CHECK_VALUE(blocks == g.out_h * g.out_w,
                    "col2im: given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), "
                    "padding=({}, {}), stride=({}, {}), expected size of input's dimension {} to "
                    "match the calculated number of sliding blocks {} * {} = {}, but got "
                    "input.size({})={}",
                    out[0], out[1], g.kh, g.kw, g.dh, g.dw, g.ph, g.pw, g.sh, g.sw, self.dim() - 1,
                    g.out_h, g.out_w, g.out_h * g.out_w, self.dim() - 1, blocks);
  const Tensor x = batched ? self : self.unsqueeze(0);
  const Tensor image = fold_col2im(x, g);
  return batched ? image : image.squeeze(0);
}

}  // namespace ember
