// Kernel slot types of the batchnorm family (batch, instance and group normalisation, local response normalisation); included by kernel_signatures.h.
#pragma once

namespace ember {

namespace kernel_kind {}  // namespace kernel_kind

}  // namespace ember
