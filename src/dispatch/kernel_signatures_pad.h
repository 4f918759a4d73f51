// Kernel slot types of the pad family (padding in every mode, pixel (un)shuffle, fold/unfold, channel shuffle); included by kernel_signatures.h.
#pragma once

namespace ember {

namespace kernel_kind {}  // namespace kernel_kind

}  // namespace ember
