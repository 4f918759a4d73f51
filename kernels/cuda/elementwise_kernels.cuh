// Instantiates the CUDA kernel of an elementwise functor for every dtype it supports: the mirror of
// kernels/cpu/elementwise_kernels.h, with the same functors and the same dtype masks.
#pragma once

// The shared functors compare unsigned values with zero in their generic integer branches
// (relu, abs of uint8); nvcc's "pointless comparison" remark about those is noise.
#pragma nv_diag_suppress 186

#include "kernels/common/binary_functors.h"
#include "kernels/common/unary_functors.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/loops.cuh"
#include "src/dispatch/dispatch.h"

namespace ember::kernels::cuda {

/// One kernel for functor Op with `Arity` inputs, all of the compute dtype.
template <class Op, int Arity>
void cuda_elementwise(const ElementwiseLoop& L) {
  const Op op(L.scalars);
  visit_dtype(L.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Op::template Supports<T>::value) {
      if constexpr (Arity == 1) {
        cuda_kernel<decltype(op(T{})), T>(L, op);
      } else if constexpr (Arity == 2) {
        cuda_kernel<decltype(op(T{}, T{})), T, T>(L, op);
      } else {
        cuda_kernel<decltype(op(T{}, T{}, T{})), T, T, T>(L, op);
      }
    }
  });
}

/// Registers row `id`'s CUDA kernel, instantiated for functor Op; nothing when Take is false (so a
/// file can register the rows of one arity from a table holding several).
template <OpId id, class Op, int Arity, bool Take = true>
void register_cuda_elementwise() {
  if constexpr (Take)
    register_kernel<id>(kCUDA, &cuda_elementwise<Op, Arity>,
                        dtype_mask_where<Op::template Supports>());
}

}  // namespace ember::kernels::cuda
