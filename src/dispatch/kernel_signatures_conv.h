// Kernel slot types of the conv family (convolution and transposed convolution (forward, backward data, backward weights)); included by kernel_signatures.h.
#pragma once

namespace ember {

namespace kernel_kind {}  // namespace kernel_kind

}  // namespace ember
