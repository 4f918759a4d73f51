// Integer arithmetic that wraps around as two's complement, which is what PyTorch's kernels give
// in practice: signed overflow is undefined in C++ (UBSan stops on it), so integers compute in
// an unsigned type of at least int's width (uint16 * uint16 would promote to int and overflow
// again) and convert back. Floating types and bool use the plain operators.
#pragma once

#include <type_traits>

#include "ember/core/macros.h"

namespace ember::kernels {

template <class A>
constexpr bool kWrapsAsUnsigned = std::is_integral_v<A> && !std::is_same_v<A, bool>;
template <class A>
using wrap_unsigned_t = std::make_unsigned_t<std::common_type_t<A, int>>;

template <class A>
EMBER_HOST_DEVICE inline A wrapping_add(A a, A b) {
  if constexpr (kWrapsAsUnsigned<A>) {
    using U = wrap_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class A>
EMBER_HOST_DEVICE inline A wrapping_sub(A a, A b) {
  if constexpr (kWrapsAsUnsigned<A>) {
    using U = wrap_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <class A>
EMBER_HOST_DEVICE inline A wrapping_mul(A a, A b) {
  if constexpr (kWrapsAsUnsigned<A>) {
    using U = wrap_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<A, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}
template <class A>
EMBER_HOST_DEVICE inline A wrapping_neg(A a) {
  return wrapping_sub(A(0), a);
}

}  // namespace ember::kernels
