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

template <class Op, int Arity>
void register_cuda_elementwise(OpId id) {
  register_kernel(id, kCUDA, reinterpret_cast<void*>(&cuda_elementwise<Op, Arity>),
                  dtype_mask_where<Op::template Supports>());
}

}  // namespace ember::kernels::cuda
