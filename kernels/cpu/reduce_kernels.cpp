// CPU reduction kernels: one entry per kernel row (sum, prod, amax, amin, argmax, argmin, var,
// norm, all, any), each a dtype switch around the generic loop of reduce_loops.h. The along-a-dim
// kernels (softmax, scans, sort, topk, median) live in reduce_dim_kernels.cpp.
#include "kernels/cpu/reduce_loops.h"
#include "src/dispatch/dispatch.h"

namespace ember {

void register_cpu_reduce_dim_kernels();

namespace {
using namespace kernels;

// Output dtype: the accumulator's (int64 for integer/bool input, float32 for 16-bit floats, used
// by mean) or the input's own (floats). The op layer asks only for these two.
template <template <class, class> class Op>
void sum_like(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = sum_acc_t<T>;
    if (L.out_dtype[0] == scalar_type_of<A>()) {
      reduce_cpu<T>(L, Op<T, A>{});
    } else if constexpr (!std::is_same_v<A, T> && is_float_type_v<T>) {
      reduce_cpu<T>(L, Op<T, T>{});
    }
  });
}

template <bool kMax>
void minmax_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_cpu<T>(L, MinMaxReduce<T, kMax>{});
  });
}

template <bool kMax>
void arg_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_cpu<T>(L, ArgReduce<T, kMax>{});
  });
}

template <bool kAll>
void logical_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, uint8_t>) {
      if (L.out_dtype[0] == ScalarType::Byte) {
        reduce_cpu<T>(L, LogicalReduce<T, uint8_t, kAll>{});
        return;
      }
    }
    reduce_cpu<T>(L, LogicalReduce<T, bool, kAll>{});
  });
}

void var_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) {
      MomentsReduce<T> op;
      op.correction = L.scalars.s[0];
      op.take_sqrt = L.scalars.s[1] != 0;
      reduce_cpu<T>(L, op);
    }
  });
}

// p = s[0]: 2, 1, inf, -inf and 0 have their own loops; any other p goes through pow.
void norm_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) {
      const double p = L.scalars.s[0];
      if (p == 2) {
        reduce_cpu<T>(L, NormReduce<T, NormKind::Two>{});
      } else if (p == 1) {
        reduce_cpu<T>(L, NormReduce<T, NormKind::One>{});
      } else if (p == 0) {
        reduce_cpu<T>(L, NormReduce<T, NormKind::Zero>{});
      } else if (std::isinf(p)) {
        if (p > 0)
          reduce_cpu<T>(L, NormReduce<T, NormKind::Inf>{});
        else
          reduce_cpu<T>(L, NormReduce<T, NormKind::NegInf>{});
      } else {
        NormReduce<T, NormKind::General> op;
        op.p = static_cast<opmath_t<T>>(p);
        reduce_cpu<T>(L, op);
      }
    }
  });
}

template <class T>
struct IsFloatT : std::bool_constant<is_float_type_v<T>> {};

}  // namespace

void register_cpu_reduce_kernels() {
  constexpr DtypeMask kFloats = dtype_mask_where<IsFloatT>();
  register_kernel<OpId::sum>(kCPU, &sum_like<SumReduce>, kAllDtypes);
  register_kernel<OpId::prod>(kCPU, &sum_like<ProdReduce>, kAllDtypes);
  register_kernel<OpId::amax>(kCPU, &minmax_kernel<true>, kAllDtypes);
  register_kernel<OpId::amin>(kCPU, &minmax_kernel<false>, kAllDtypes);
  // bool is accepted for max/min with a dim; the argmax op itself rejects bool as PyTorch does.
  register_kernel<OpId::argmax>(kCPU, &arg_kernel<true>, kAllDtypes);
  register_kernel<OpId::argmin>(kCPU, &arg_kernel<false>, kAllDtypes);
  register_kernel<OpId::all>(kCPU, &logical_kernel<true>, kAllDtypes);
  register_kernel<OpId::any>(kCPU, &logical_kernel<false>, kAllDtypes);
  register_kernel<OpId::var>(kCPU, &var_kernel, kFloats);
  register_kernel<OpId::norm>(kCPU, &norm_kernel, kFloats);
  register_cpu_reduce_dim_kernels();
}

}  // namespace ember
