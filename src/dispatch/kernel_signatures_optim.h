// Kernel slot types of the optim family (the fused optimizer updates (one pass per parameter, multi-tensor)); included by kernel_signatures.h.
#pragma once

namespace ember {

namespace kernel_kind {}  // namespace kernel_kind

}  // namespace ember
