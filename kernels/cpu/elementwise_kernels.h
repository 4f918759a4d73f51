// Instantiates the CPU kernel of an elementwise functor for every dtype it supports.
#pragma once

#include "kernels/common/binary_functors.h"
#include "kernels/common/unary_functors.h"
#include "kernels/common/visit.h"
#include "kernels/cpu/loops.h"
#include "src/dispatch/dispatch.h"

namespace ember::kernels {

/// One kernel for functor Op with `Arity` inputs, all of the compute dtype.
template <class Op, int Arity>
void cpu_elementwise(const ElementwiseLoop& L) {
  const Op op(L.scalars);
  visit_dtype(L.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Op::template Supports<T>::value) {
      if constexpr (Arity == 1) {
        cpu_kernel<decltype(op(T{})), T>(L, op);
      } else if constexpr (Arity == 2) {
        cpu_kernel<decltype(op(T{}, T{})), T, T>(L, op);
      } else {
        cpu_kernel<decltype(op(T{}, T{}, T{})), T, T, T>(L, op);
      }
    }
  });
}

/// Registers row `id`'s CPU kernel, instantiated for functor Op; nothing when Take is false (so a
/// file can register the rows of one arity from a table holding several).
template <OpId id, class Op, int Arity, bool Take = true>
void register_cpu_elementwise() {
  if constexpr (Take)
    register_kernel<id>(kCPU, &cpu_elementwise<Op, Arity>,
                        dtype_mask_where<Op::template Supports>());
}

}  // namespace ember::kernels
