// irange: the integers of a half-open range, for range-for loops (LibTorch's c10::irange):
//   for (auto i : irange(t.dim())) ...        // 0, 1, ..., dim - 1
//   for (auto i : irange(1, sizes.size())) ... // of end's type (size_t here)
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace ember {

/// The integers [begin, end) of type I; empty when end <= begin (a negative count does not loop).
template <class I>
class IntegerRange {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>, "irange: needs an integer type");

 public:
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = I;
    using difference_type = std::ptrdiff_t;
    using pointer = const I*;
    using reference = I;

    constexpr iterator() = default;
    constexpr explicit iterator(I value) : value_(value) {}
    constexpr I operator*() const { return value_; }
    constexpr iterator& operator++() {
      ++value_;
      return *this;
    }
    constexpr iterator operator++(int) {
      iterator before = *this;
      ++value_;
      return before;
    }
    constexpr bool operator==(const iterator& other) const { return value_ == other.value_; }
    constexpr bool operator!=(const iterator& other) const { return value_ != other.value_; }

   private:
    I value_{};
  };

  constexpr IntegerRange(I begin, I end) : begin_(begin), end_(end < begin ? begin : end) {}
  constexpr iterator begin() const { return iterator(begin_); }
  constexpr iterator end() const { return iterator(end_); }

 private:
  I begin_;
  I end_;
};

/// 0, 1, ..., end - 1; empty when end <= 0.
template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
constexpr IntegerRange<I> irange(I end) {
  return IntegerRange<I>(I{}, end);
}

/// begin, ..., end - 1 in end's type; empty when end <= begin.
template <class B, class E,
          class = std::enable_if_t<std::is_integral_v<B> && std::is_integral_v<E>>>
constexpr IntegerRange<E> irange(B begin, E end) {
  return IntegerRange<E>(static_cast<E>(begin), end);
}

}  // namespace ember
