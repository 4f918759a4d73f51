// CUDA reduction kernels for the argmax, argmin, var and norm slots (the mirror of the rest of
// kernels/cpu/reduce_kernels.cpp), in a file of their own to keep nvcc's compile units small.
#include "kernels/cuda/reduce_loops.cuh"
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {
namespace {
using namespace kernels;
using kernels::cuda::reduce_cuda;

// The GPU folds interleaved positions per lane, so merging two partial results cannot rely on
// "a covers the earlier indices" as the CPU loop does: a tie goes to the smaller index instead,
// which is the same first-occurrence rule (and a NaN still beats everything, the first NaN wins).
template <class T, bool kMax>
struct ArgReduceAnyOrder : ArgReduce<T, kMax> {
  using Base = ArgReduce<T, kMax>;
  using acc_t = typename Base::acc_t;
  EMBER_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    if (Base::better(b.v, a.v)) return b;
    if (Base::better(a.v, b.v)) return a;
    return b.i < a.i ? b : a;
  }
};

template <bool kMax>
void arg_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_cuda<T>(L, ArgReduceAnyOrder<T, kMax>{});
  });
}

void var_kernel(const ReduceLoop& L) {
  visit_dtype(L.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) {
      MomentsReduce<T> op;
      op.correction = L.scalars.s[0];
      op.take_sqrt = L.scalars.s[1] != 0;
      reduce_cuda<T>(L, op);
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
        reduce_cuda<T>(L, NormReduce<T, NormKind::Two>{});
      } else if (p == 1) {
        reduce_cuda<T>(L, NormReduce<T, NormKind::One>{});
      } else if (p == 0) {
        reduce_cuda<T>(L, NormReduce<T, NormKind::Zero>{});
      } else if (std::isinf(p)) {
        if (p > 0)
          reduce_cuda<T>(L, NormReduce<T, NormKind::Inf>{});
        else
          reduce_cuda<T>(L, NormReduce<T, NormKind::NegInf>{});
      } else {
        NormReduce<T, NormKind::General> op;
        op.p = static_cast<opmath_t<T>>(p);
        reduce_cuda<T>(L, op);
      }
    }
  });
}

template <class T>
struct IsFloatT : std::bool_constant<is_float_type_v<T>> {};

}  // namespace

void register_cuda_reduce_stats_kernels() {
  constexpr DtypeMask kFloats = dtype_mask_where<IsFloatT>();
  // bool is accepted for max/min with a dim; the argmax op itself rejects bool as PyTorch does.
  register_kernel<OpId::argmax>(kCUDA, &arg_kernel<true>, kAllDtypes);
  register_kernel<OpId::argmin>(kCUDA, &arg_kernel<false>, kAllDtypes);
  register_kernel<OpId::var>(kCUDA, &var_kernel, kFloats);
  register_kernel<OpId::norm>(kCUDA, &norm_kernel, kFloats);
}

}  // namespace ember::cuda_detail
