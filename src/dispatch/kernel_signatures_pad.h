// Kernel slot types of the pad family (padding in every mode, pixel (un)shuffle, fold/unfold,
// channel shuffle); included by kernel_signatures.h.
#pragma once

namespace ember {

struct PadIndexParams;  // kernels/common/pad_params.h
struct Im2ColParams;    // kernels/common/pad_params.h

namespace kernel_kind {
/// pad_nd (gather through per-dim index maps) and pad_nd_backward (its scatter-add).
using PadIndex = void (*)(ScalarType dtype, const PadIndexParams& p);
/// im2col (image to sliding-block columns) and col2im (columns summed back into the image).
using Im2Col = void (*)(ScalarType dtype, const Im2ColParams& p);
}  // namespace kernel_kind

}  // namespace ember
