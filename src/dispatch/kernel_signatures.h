// The function types of kernel slots, one per kind of kernel; each op row of op_table.h names its
// kind, so registering or looking up a kernel of another type fails to compile.
#pragma once

#include <cstddef>

#include "ember/core/device.h"
#include "ember/core/scalar_type.h"

namespace ember {

struct ElementwiseLoop;  // kernels/common/elementwise_loop.h
struct ReduceLoop;       // kernels/common/reduce_loop.h
struct DimLoop;          // kernels/common/reduce_loop.h
struct GemmParams;       // kernels/common/gemm_params.h

namespace kernel_kind {
/// Every elementwise row: one loop description, the dtype switch inside.
using Elementwise = void (*)(const ElementwiseLoop&);
/// Full and dim reductions (sum, amax, var, ...).
using Reduce = void (*)(const ReduceLoop&);
/// Ops along one dim (softmax, cumsum, sort, ...).
using AlongDim = void (*)(const DimLoop&);
/// mm and bmm.
using Gemm = void (*)(ScalarType dtype, const GemmParams& p);
/// Bytes between devices (copy's slot, registered by a device backend).
using CrossDeviceCopy = void (*)(void* dst, Device dst_device, const void* src, Device src_device,
                                 size_t nbytes);
}  // namespace kernel_kind

}  // namespace ember
