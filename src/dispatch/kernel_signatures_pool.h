// Kernel slot types of the pool family (pooling: max, average, adaptive, LP, unpooling, fractional); included by kernel_signatures.h.
#pragma once

namespace ember {

namespace kernel_kind {}  // namespace kernel_kind

}  // namespace ember
