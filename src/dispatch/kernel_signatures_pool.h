// Kernel slot types of the pool family (pooling: max, average, adaptive, LP, unpooling,
// fractional); included by kernel_signatures.h. The operands are in kernels/common/pool_params.h.
#pragma once

#include "ember/core/scalar_type.h"

namespace ember {

struct PoolParams;            // kernels/common/pool_params.h
struct PoolIndexParams;       // kernels/common/pool_params.h
struct FractionalPoolParams;  // kernels/common/pool_params.h

namespace kernel_kind {
/// Windowed max/avg pooling (plain or adaptive) and average pooling's backward.
using Pool = void (*)(ScalarType dtype, const PoolParams& p);
/// Moving values along max indices: max pooling's backward, unpooling and its backward.
using PoolIndex = void (*)(ScalarType dtype, const PoolIndexParams& p);
/// Fractional max pooling's forward.
using FractionalPool = void (*)(ScalarType dtype, const FractionalPoolParams& p);
}  // namespace kernel_kind

}  // namespace ember
