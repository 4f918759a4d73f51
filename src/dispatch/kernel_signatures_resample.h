// Kernel slot types of the resample family (interpolation (upsampling), grid_sample, affine_grid); included by kernel_signatures.h.
#pragma once

namespace ember {

namespace kernel_kind {}  // namespace kernel_kind

}  // namespace ember
