// CUDA reduction kernels for the sum, prod, amax, amin, all and any slots: the same dtype rules
// and accumulator functors as kernels/cpu/reduce_kernels.cpp, driven by reduce_loops.cuh.
#include "kernels/cuda/reduce_loops.cuh"
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {
namespace {
using namespace kernels;
using kernels::cuda::reduce_cuda;

// Output dtype: the accumulator's (int64 for integer/bool input, float32 for 16-bit floats, used
// by mean) or the input's own (floats). The op layer asks only for these two.
template <template <class, class> class Op>
void sum_like(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = sum_acc_t<T>;
    if (L.out_dtype[0] == scalar_type_of<A>()) {
      reduce_cuda<T>(L, Op<T, A>{});
    } else if constexpr (!std::is_same_v<A, T> && is_float_type_v<T>) {
      reduce_cuda<T>(L, Op<T, T>{});
    }
  });
}

template <bool kMax>
void minmax_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_cuda<T>(L, MinMaxReduce<T, kMax>{});
  });
}

template <bool kAll>
void logical_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, uint8_t>) {
      if (L.out_dtype[0] == ScalarType::Byte) {
        reduce_cuda<T>(L, LogicalReduce<T, uint8_t, kAll>{});
        return;
      }
    }
    reduce_cuda<T>(L, LogicalReduce<T, bool, kAll>{});
  });
}

}  // namespace

void register_cuda_reduce_kernels() {
  register_kernel<OpId::sum>(kCUDA, &sum_like<SumReduce>, kAllDtypes);
  register_kernel<OpId::prod>(kCUDA, &sum_like<ProdReduce>, kAllDtypes);
  register_kernel<OpId::amax>(kCUDA, &minmax_kernel<true>, kAllDtypes);
  register_kernel<OpId::amin>(kCUDA, &minmax_kernel<false>, kAllDtypes);
  register_kernel<OpId::all>(kCUDA, &logical_kernel<true>, kAllDtypes);
  register_kernel<OpId::any>(kCUDA, &logical_kernel<false>, kAllDtypes);
}

}  // namespace ember::cuda_detail
