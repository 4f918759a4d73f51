// Kernel slot types of the conv family (convolution and transposed convolution: forward, backward
// data, backward weights); included by kernel_signatures.h.
#pragma once

namespace ember {

struct ConvParams;  // kernels/common/conv_params.h

namespace kernel_kind {
/// convolution, convolution_backward_data, convolution_backward_weights: one convolution of
/// ConvParams's geometry; which operands each slot reads and writes is documented there.
using Conv = void (*)(ScalarType dtype, const ConvParams& p);
}  // namespace kernel_kind

}  // namespace ember
