// Kernel slot types of the optim family (the fused optimizer updates: one pass per parameter, many
// parameters per call); included by kernel_signatures.h. The params structs are in
// kernels/common/optim_params.h.
#pragma once

namespace ember {

struct SgdUpdateParams;
struct AdamUpdateParams;
struct AdagradUpdateParams;
struct RmspropUpdateParams;
struct AdamaxUpdateParams;
struct AdadeltaUpdateParams;
struct NadamUpdateParams;
struct RadamUpdateParams;

namespace kernel_kind {
/// One multi-tensor update per optimizer family, for params of `dtype`.
using SgdUpdate = void (*)(ScalarType dtype, const SgdUpdateParams& p);
using AdamUpdate = void (*)(ScalarType dtype, const AdamUpdateParams& p);
using AdagradUpdate = void (*)(ScalarType dtype, const AdagradUpdateParams& p);
using RmspropUpdate = void (*)(ScalarType dtype, const RmspropUpdateParams& p);
using AdamaxUpdate = void (*)(ScalarType dtype, const AdamaxUpdateParams& p);
using AdadeltaUpdate = void (*)(ScalarType dtype, const AdadeltaUpdateParams& p);
using NadamUpdate = void (*)(ScalarType dtype, const NadamUpdateParams& p);
using RadamUpdate = void (*)(ScalarType dtype, const RadamUpdateParams& p);
}  // namespace kernel_kind

}  // namespace ember
