// Kernel slot types of the attention family (fused scaled dot-product attention and its
// backward); included by kernel_signatures.h.
#pragma once

namespace ember {

struct SdpaParams;          // kernels/common/attention_params.h
struct SdpaBackwardParams;  // kernels/common/attention_params.h
struct FlexParams;          // kernels/common/flex_attention_params.h
struct FlexBackwardParams;  // kernels/common/flex_attention_params.h

namespace kernel_kind {
using SdpaFused = void (*)(ScalarType dtype, const SdpaParams& p);
using SdpaFusedBackward = void (*)(ScalarType dtype, const SdpaBackwardParams& p);
using FlexFused = void (*)(ScalarType dtype, const FlexParams& p);
using FlexFusedBackward = void (*)(ScalarType dtype, const FlexBackwardParams& p);
}  // namespace kernel_kind

}  // namespace ember
