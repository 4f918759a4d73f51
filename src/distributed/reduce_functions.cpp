#include "src/distributed/reduce_functions.h"

#include <algorithm>
#include <cmath>

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
        return make<T>([](T x, T y) { return static_cast<T>(x * y); });
      case ReduceOp::MIN:
        if constexpr (std::is_floating_point_v<T>)  // NaN wins, as torch.minimum
          return make<T>([](T x, T y) {
            return (std::isnan(x) || x < y) ? x : (std::isnan(y) ? y : std::min(x, y));
          });
        else
          return make<T>([](T x, T y) { return std::min(x, y); });
      case ReduceOp::MAX:
        if constexpr (std::is_floating_point_v<T>)
          return make<T>([](T x, T y) {
            return (std::isnan(x) || x > y) ? x : (std::isnan(y) ? y : std::max(x, y));
          });
        else
          return make<T>([](T x, T y) { return std::max(x, y); });
      default:
        return make<T>([](T x, T y) { return static_cast<T>(x + y); });
    }
  }
}

}  // namespace

ReduceFn reduce_function(ScalarType dtype, ReduceOp op) {
  return visit_dtype(dtype, [&](auto tag) { return typed<typename decltype(tag)::type>(op); });
}

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
