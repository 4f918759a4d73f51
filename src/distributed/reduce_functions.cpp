#include "src/distributed/reduce_functions.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/common/visit.h"

namespace ember {
namespace distributed {

namespace {

template <class T, class Op>
ReduceFn make(Op op) {
  return [op](void* c, const void* a, const void* b, size_t n) {
    T* out = static_cast<T*>(c);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) out[i] = op(x[i], y[i]);
  };
}

// Integer sums and products wrap (two's complement, as LibTorch's in practice) instead of
// overflowing a signed type, which is undefined.
// (Narrow types in unsigned int: their unsigned forms would promote to int and overflow there.)
template <class T, bool = std::is_integral_v<T>>
struct WrappingOf {
  using type = T;
};
template <class T>
struct WrappingOf<T, true> {
  using type =
      std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <class T>
using Wrapping = typename WrappingOf<T>::type;

// One element of a reduction of standard (not reduced-precision, not bool) values.
template <class T, ReduceOp Op>
T combine(T x, T y) {
  if constexpr (Op == ReduceOp::PRODUCT) {
    return static_cast<T>(static_cast<Wrapping<T>>(x) * static_cast<Wrapping<T>>(y));
  } else if constexpr (Op == ReduceOp::MIN) {
    if constexpr (std::is_floating_point_v<T>)  // NaN wins, as torch.minimum
      return (std::isnan(x) || x < y) ? x : (std::isnan(y) ? y : std::min(x, y));
    else
      return std::min(x, y);
  } else if constexpr (Op == ReduceOp::MAX) {
    if constexpr (std::is_floating_point_v<T>)
      return (std::isnan(x) || x > y) ? x : (std::isnan(y) ? y : std::max(x, y));
    else
      return std::max(x, y);
  } else {  // SUM, and AVG (divided afterwards)
    return static_cast<T>(static_cast<Wrapping<T>>(x) + static_cast<Wrapping<T>>(y));
  }
}

template <class T, ReduceOp Op>
void reduce_in_place(T* __restrict x, const T* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = combine<T, Op>(x[i], y[i]);
}

template <class T>
ReduceFn typed(ReduceOp op) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == ReduceOp::PRODUCT || op == ReduceOp::MIN)
      return make<T>([](bool x, bool y) { return x && y; });
    return make<T>([](bool x, bool y) { return x || y; });
  } else if constexpr (is_reduced_float_v<T>) {
    switch (op) {
      case ReduceOp::PRODUCT:
        return make<T>([](T x, T y) { return T(float(x) * float(y)); });
      case ReduceOp::MIN:  // NaN wins, as torch.minimum
        return make<T>([](T x, T y) {
          float a = x, b = y;
          return (std::isnan(a) || a < b) ? x : (std::isnan(b) || b < a ? y : x);
        });
      case ReduceOp::MAX:
        return make<T>([](T x, T y) {
          float a = x, b = y;
          return (std::isnan(a) || a > b) ? x : (std::isnan(b) || b > a ? y : x);
        });
      default:
        return make<T>([](T x, T y) { return T(float(x) + float(y)); });
    }
  } else {
    switch (op) {
      case ReduceOp::PRODUCT:
        return make<T>([](T x, T y) { return combine<T, ReduceOp::PRODUCT>(x, y); });
      case ReduceOp::MIN:
        return make<T>([](T x, T y) { return combine<T, ReduceOp::MIN>(x, y); });
      case ReduceOp::MAX:
        return make<T>([](T x, T y) { return combine<T, ReduceOp::MAX>(x, y); });
      default:
        return make<T>([](T x, T y) { return combine<T, ReduceOp::SUM>(x, y); });
    }
  }
}

}  // namespace

ReduceFn reduce_function(ScalarType dtype, ReduceOp op) {
  return visit_dtype(dtype, [&](auto tag) { return typed<typename decltype(tag)::type>(op); });
}

template <class T>
InPlaceReduce<T> in_place_reduce(ReduceOp op) {
  switch (op) {
    case ReduceOp::PRODUCT:
      return &reduce_in_place<T, ReduceOp::PRODUCT>;
    case ReduceOp::MIN:
      return &reduce_in_place<T, ReduceOp::MIN>;
    case ReduceOp::MAX:
      return &reduce_in_place<T, ReduceOp::MAX>;
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      break;
  }
  return &reduce_in_place<T, ReduceOp::SUM>;
}

template InPlaceReduce<float> in_place_reduce<float>(ReduceOp);
template InPlaceReduce<double> in_place_reduce<double>(ReduceOp);
template InPlaceReduce<int32_t> in_place_reduce<int32_t>(ReduceOp);
template InPlaceReduce<int64_t> in_place_reduce<int64_t>(ReduceOp);

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
  }
  return "?";
}

}  // namespace distributed
}  // namespace ember
