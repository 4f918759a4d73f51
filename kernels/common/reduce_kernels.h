// The reduction kernels of every backend, written once: each is a dtype switch that picks the
// accumulator functor of reduce_ops.h and hands it to the backend's loop (Backend::run: reduce_cpu
// or reduce_cuda), and each backend registers them with one call per group. Included by
// kernels/cpu/reduce_kernels.cpp and kernels/cuda/reduce*_kernels.cu only.
#pragma once

#include <cmath>
#include <type_traits>

#include "kernels/common/reduce_ops.h"
#include "src/dispatch/dispatch.h"

namespace ember::kernels {

// Backend: struct with `template <class T, class Op> static void run(const ReduceLoop&, const
// Op&)` and `template <class T, bool kMax> using Arg` (its argmax/argmin accumulator).
template <class Backend>
struct ReduceKernels {
  // Output dtype: the accumulator's (int64 for integer/bool input, float32 for 16-bit floats,
  // used by mean) or the input's own (floats). The op layer asks only for these two.
  template <template <class, class> class Op>
  static void sum_like(const ReduceLoop& L) {
    visit_dtype(L.in_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = sum_acc_t<T>;
      if (L.out_dtype[0] == scalar_type_of<A>()) {
        Backend::template run<T>(L, Op<T, A>{});
      } else if constexpr (!std::is_same_v<A, T> && is_float_type_v<T>) {
        Backend::template run<T>(L, Op<T, T>{});
      }
    });
  }

  template <bool kMax>
  static void minmax(const ReduceLoop& L) {
    visit_dtype(L.in_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Backend::template run<T>(L, MinMaxReduce<T, kMax>{});
    });
  }

  template <bool kMax>
  static void arg(const ReduceLoop& L) {
    visit_dtype(L.in_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Backend::template run<T>(L, typename Backend::template Arg<T, kMax>{});
    });
  }

  // all/any write bool, or uint8 for uint8 input (PyTorch's rule).
  template <bool kAll>
  static void logical(const ReduceLoop& L) {
    visit_dtype(L.in_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, uint8_t>) {
        if (L.out_dtype[0] == ScalarType::Byte) {
          Backend::template run<T>(L, LogicalReduce<T, uint8_t, kAll>{});
          return;
        }
      }
      Backend::template run<T>(L, LogicalReduce<T, bool, kAll>{});
    });
  }

  // s[0] = correction, s[1] != 0: take the square root (std).
  static void var(const ReduceLoop& L) {
    visit_dtype(L.in_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_float_type_v<T>) {
        MomentsReduce<T> op;
        op.correction = L.scalars.s[0];
        op.take_sqrt = L.scalars.s[1] != 0;
        Backend::template run<T>(L, op);
      }
    });
  }

  // p = s[0]: 2, 1, inf, -inf and 0 have their own loops; any other p goes through pow.
  static void norm(const ReduceLoop& L) {
    visit_dtype(L.in_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_float_type_v<T>) {
        const double p = L.scalars.s[0];
        if (p == 2) {
          Backend::template run<T>(L, NormReduce<T, NormKind::Two>{});
        } else if (p == 1) {
          Backend::template run<T>(L, NormReduce<T, NormKind::One>{});
        } else if (p == 0) {
          Backend::template run<T>(L, NormReduce<T, NormKind::Zero>{});
        } else if (std::isinf(p)) {
          if (p > 0)
            Backend::template run<T>(L, NormReduce<T, NormKind::Inf>{});
          else
            Backend::template run<T>(L, NormReduce<T, NormKind::NegInf>{});
        } else {
          NormReduce<T, NormKind::General> op;
          op.p = static_cast<opmath_t<T>>(p);
          Backend::template run<T>(L, op);
        }
      }
    });
  }

  template <class T>
  struct IsFloatT : std::bool_constant<is_float_type_v<T>> {};

  // Two groups, so a backend can compile them in two translation units (nvcc's are slow).
  static void register_sums_and_extrema(DeviceType device) {
    register_kernel<OpId::sum>(device, &sum_like<SumReduce>, kAllDtypes);
    register_kernel<OpId::prod>(device, &sum_like<ProdReduce>, kAllDtypes);
    register_kernel<OpId::amax>(device, &minmax<true>, kAllDtypes);
    register_kernel<OpId::amin>(device, &minmax<false>, kAllDtypes);
    register_kernel<OpId::all>(device, &logical<true>, kAllDtypes);
    register_kernel<OpId::any>(device, &logical<false>, kAllDtypes);
  }
  static void register_statistics(DeviceType device) {
    constexpr DtypeMask kFloats = dtype_mask_where<IsFloatT>();
    // bool is accepted for max/min with a dim; the argmax op itself rejects bool as PyTorch does.
    register_kernel<OpId::argmax>(device, &arg<true>, kAllDtypes);
    register_kernel<OpId::argmin>(device, &arg<false>, kAllDtypes);
    register_kernel<OpId::var>(device, &var, kFloats);
    register_kernel<OpId::norm>(device, &norm, kFloats);
  }
};

}  // namespace ember::kernels
