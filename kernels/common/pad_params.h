// The kernel interface behind the pad family's slots: `pad_nd` / `pad_nd_backward` (reflect,
// replicate and circular padding as a gather through per-dim index maps, and its scatter-add),
// and `im2col` / `col2im` (F::unfold / F::fold). Every pointer is in the memory of the device the
// kernel is registered for; operands are dense and row-major; the caller has checked every index.
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"

namespace ember {

/// Padding of the last nd (1..3) dims of a [outer, in_size...] tensor into [outer, out_size...]:
/// along padded dim d, output position o reads input position map[d][o] (each map has
/// out_size[d] entries in [0, in_size[d])). Every mode (reflect, replicate, circular, and
/// negative pads, which crop) is such a map, so one kernel pair serves them all.
///   pad_nd:          dst[b, o0, o1, o2] = src[b, map0[o0], map1[o1], map2[o2]]
///   pad_nd_backward: dst[b, i...] = Σ over o with map(o) = i of src[b, o...]; src is the
///                    gradient of the padded output, dst the input's gradient (fully written).
/// Dims are listed outermost first; unused trailing entries (d >= nd) are ignored.
struct PadIndexParams {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t outer = 0;
  int nd = 0;
  int64_t in_size[3] = {1, 1, 1};
  int64_t out_size[3] = {1, 1, 1};
  const int64_t* map[3] = {nullptr, nullptr, nullptr};
};

/// Sliding 2-D blocks of a [batch, channels, height, width] image, as ATen's im2col/col2im: block
/// (by, bx) of out_h x out_w starts at (by·sh - ph, bx·sw - pw); its kernel element (ki, kj) sits
/// at (ki·dh, kj·dw) from there (positions outside the image read as zero).
///   im2col: cols[n, (c·kh + ki)·kw + kj, by·out_w + bx] = image[n, c, y, x]   (0 outside)
///   col2im: image[n, c, y, x] = Σ of the cols entries that read (y, x)       (fully written)
struct Im2ColParams {
  const void* src = nullptr;  ///< im2col: the image; col2im: the cols
  void* dst = nullptr;        ///< im2col: the cols; col2im: the image
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t kh = 1, kw = 1, dh = 1, dw = 1, ph = 0, pw = 0, sh = 1, sw = 1;
  int64_t out_h = 0, out_w = 0;
};

}  // namespace ember
