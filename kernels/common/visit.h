// The one dtype switch. visit_dtype(t, f) calls f(TypeTag<T>{}) with T the C++ type of t.
#pragma once

#include "ember/core/scalar_type.h"

namespace ember {

template <class T>
struct TypeTag {
  using type = T;
};

template <class F>
decltype(auto) visit_dtype(ScalarType t, F&& f) {
  switch (t) {
#define EMBER_VISIT_CASE(ctype, name, short_name) \
  case ScalarType::name:                          \
    return f(TypeTag<ctype>{});
    EMBER_FORALL_SCALAR_TYPES(EMBER_VISIT_CASE)
#undef EMBER_VISIT_CASE
    default:
      return f(TypeTag<float>{});  // unreachable: callers check the dtype first
  }
}

/// Calls f(T{}) with T float or double: the dtypes of the LAPACK routines (callers have checked
/// that t is float32 or float64).
template <class F>
decltype(auto) visit_float_or_double(ScalarType t, F&& f) {
  if (t == ScalarType::Double) return f(double{});
  return f(float{});
}

/// float16 and bfloat16 (is_reduced_float for a ScalarType): they compute in float (opmath_t).
template <class T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T>
constexpr bool is_float_type_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;
template <class T>
constexpr bool is_int_type_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Mask of the dtypes for which Pred<T>::value holds.
template <template <class> class Pred>
constexpr uint32_t dtype_mask_where() {
  uint32_t m = 0;
#define EMBER_MASK_ROW(ctype, name, short_name) \
  if (Pred<ctype>::value) m |= uint32_t(1) << static_cast<int>(ScalarType::name);
  EMBER_FORALL_SCALAR_TYPES(EMBER_MASK_ROW)
#undef EMBER_MASK_ROW
  return m;
}

}  // namespace ember
