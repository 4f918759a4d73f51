// An optional ArrayRef that is safe to build from a braced list or a single value in a call
// (LibTorch's c10::OptionalArrayRef / OptionalIntArrayRef).
//
// std::optional<IntArrayRef> is not: its converting constructor builds the ArrayRef inside the
// optional's own constructor, so `f({1})` or `f(1)` can leave it pointing at a temporary that died
// there. Here every constructor takes what the ArrayRef refers to by reference from the caller, so
// the values live until the end of the caller's full expression, as a call argument needs.
#pragma once

#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/core/array_ref.h"

namespace ember {

template <class T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() noexcept = default;
  constexpr OptionalArrayRef(std::nullopt_t) noexcept {}
  constexpr OptionalArrayRef(ArrayRef<T> values) noexcept : value_(values) {}
  /// One value: `sum(t, 1)` means dim {1}.
  constexpr OptionalArrayRef(const T& one) noexcept : value_(ArrayRef<T>(one)) {}
  template <class A>
  OptionalArrayRef(const std::vector<T, A>& values) noexcept : value_(ArrayRef<T>(values)) {}
  // The list lives until the end of the caller's full expression (see ArrayRef's constructor).
  constexpr OptionalArrayRef(const std::initializer_list<T>& values) noexcept
      : value_(ArrayRef<T>(values)) {}
  constexpr OptionalArrayRef(const std::optional<ArrayRef<T>>& other) noexcept : value_(other) {}
  // Any other container ArrayRef<T> takes (SmallVector, DimVector, std::array).
  template <class C, class = std::enable_if_t<!std::is_same_v<std::decay_t<C>, OptionalArrayRef> &&
                                              !std::is_same_v<std::decay_t<C>, ArrayRef<T>> &&
                                              !std::is_convertible_v<const C&, const T&> &&
                                              std::is_constructible_v<ArrayRef<T>, const C&>>>
  OptionalArrayRef(const C& values) noexcept : value_(ArrayRef<T>(values)) {}

  constexpr bool has_value() const noexcept { return value_.has_value(); }
  constexpr explicit operator bool() const noexcept { return value_.has_value(); }
  constexpr ArrayRef<T> value() const { return value_.value(); }
  constexpr ArrayRef<T> operator*() const noexcept { return *value_; }
  constexpr const ArrayRef<T>* operator->() const noexcept { return &*value_; }
  constexpr ArrayRef<T> value_or(ArrayRef<T> fallback) const noexcept {
    return value_ ? *value_ : fallback;
  }
  void reset() noexcept { value_.reset(); }
  /// The std form, for code that passes it on.
  constexpr std::optional<ArrayRef<T>> as_optional() const noexcept { return value_; }

 private:
  std::optional<ArrayRef<T>> value_;
};

using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

}  // namespace ember
