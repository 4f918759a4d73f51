// The function types of kernel slots, one per kind of kernel; each op row of op_table.h names its
// kind, so registering or looking up a kernel of another type fails to compile.
#pragma once

#include <cstddef>

#include "ember/core/device.h"
#include "ember/core/scalar_type.h"

namespace ember {

struct ElementwiseLoop;        // kernels/common/elementwise_loop.h
struct ReduceLoop;             // kernels/common/reduce_loop.h
struct DimLoop;                // kernels/common/reduce_loop.h
struct GemmParams;             // kernels/common/gemm_params.h
struct RowNormParams;          // kernels/common/row_norm_params.h
struct RowNormBackwardParams;  // kernels/common/row_norm_params.h
struct GatherRowsParams;       // kernels/common/embedding_params.h
struct BagSumRowsParams;       // kernels/common/embedding_params.h
struct ScatterAddRowsParams;   // kernels/common/embedding_params.h
struct LuFactorParams;         // kernels/common/lapack_params.h
struct LuSolveParams;          // kernels/common/lapack_params.h
struct CholeskyParams;         // kernels/common/lapack_params.h
struct QrFactorParams;         // kernels/common/lapack_params.h
struct QrOrgqrParams;          // kernels/common/lapack_params.h
struct SvdParams;              // kernels/common/lapack_params.h
struct EighParams;             // kernels/common/lapack_params.h

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
/// layer_norm / rms_norm: the fused row normalisation and its backward.
using RowNorm = void (*)(ScalarType dtype, const RowNormParams& p);
using RowNormBackward = void (*)(ScalarType dtype, const RowNormBackwardParams& p);
/// Embedding lookups, bags and their gradient.
using GatherRows = void (*)(ScalarType dtype, const GatherRowsParams& p);
using BagSumRows = void (*)(ScalarType dtype, const BagSumRowsParams& p);
using ScatterAddRows = void (*)(ScalarType dtype, const ScatterAddRowsParams& p);
/// Indexing (kernels/cpu/index_kernels.h has the operand layouts): gather one element per output
/// position; scatter values (accumulating or not); fill where a mask is true with the element at
/// `value` (host memory, the output dtype's bytes).
using IndexGather = void (*)(const ElementwiseLoop& L);
using IndexPut = void (*)(const ElementwiseLoop& L, bool accumulate);
using MaskedFill = void (*)(const ElementwiseLoop& L, const void* value);
/// The LAPACK routines of ember::linalg, one slot each (kernels/common/lapack_params.h: batches
/// of column-major matrices in the kernel's device memory, LAPACK's info per entry on the host).
using LuFactor = void (*)(ScalarType dtype, const LuFactorParams& p);  // getrf
using LuSolve = void (*)(ScalarType dtype, const LuSolveParams& p);    // getrs
using Cholesky = void (*)(ScalarType dtype, const CholeskyParams& p);  // potrf
using QrFactor = void (*)(ScalarType dtype, const QrFactorParams& p);  // geqrf
using QrOrgqr = void (*)(ScalarType dtype, const QrOrgqrParams& p);    // orgqr
using Svd = void (*)(ScalarType dtype, const SvdParams& p);            // gesdd / gesvd
using Eigh = void (*)(ScalarType dtype, const EighParams& p);          // syevd
}  // namespace kernel_kind

}  // namespace ember

// The families with their own signature headers (one per family keeps their kinds apart).
#include "src/dispatch/kernel_signatures_attention.h"
#include "src/dispatch/kernel_signatures_batchnorm.h"
#include "src/dispatch/kernel_signatures_conv.h"
#include "src/dispatch/kernel_signatures_optim.h"
#include "src/dispatch/kernel_signatures_pad.h"
#include "src/dispatch/kernel_signatures_pool.h"
#include "src/dispatch/kernel_signatures_resample.h"
#include "src/dispatch/kernel_signatures_rnn.h"
