// Kernel slot types of the resample family (interpolation (upsampling), grid_sample); included by
// kernel_signatures.h. The params structs are in kernels/common/resample_params.h.
#pragma once

namespace ember {

struct UpsampleParams;    // kernels/common/resample_params.h
struct GridSampleParams;  // kernels/common/resample_params.h

namespace kernel_kind {
/// upsample and upsample_backward: one separable interpolation (its direction is the slot's).
using Upsample = void (*)(ScalarType dtype, const UpsampleParams& p);
/// grid_sample and grid_sample_backward.
using GridSample = void (*)(ScalarType dtype, const GridSampleParams& p);
}  // namespace kernel_kind

}  // namespace ember
