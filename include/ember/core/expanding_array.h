// ExpandingArray<D>: D values given as one value for all or as exactly D, as a layer option such as
// a kernel size or stride is (LibTorch's torch::ExpandingArray):
//   ExpandingArray<2> k = 3;       // {3, 3}
//   ExpandingArray<2> s = {1, 2};  // {1, 2}; {1, 2, 3} throws ValueError
//   (*k)[0], k->size(), IntArrayRef(k)
// ExpandingArrayWithOptionalElem<D> holds optional values: {2, std::nullopt} (an output size
// where one dim keeps the input's).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"
#include "ember/core/string_util.h"

namespace ember {

/// D values of type T, from one value repeated or from exactly D.
template <size_t D, class T = int64_t>
class ExpandingArray {
 public:
  /// `single` D times.
  ExpandingArray(T single) { values_.fill(single); }
  /// Exactly D values; throws ValueError otherwise.
  ExpandingArray(std::initializer_list<T> values) : ExpandingArray(ArrayRef<T>(values)) {}
  ExpandingArray(const std::vector<T>& values) : ExpandingArray(ArrayRef<T>(values)) {}
  ExpandingArray(ArrayRef<T> values) {
    check_count(values.size());
    std::copy(values.begin(), values.end(), values_.begin());
  }
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }
  constexpr size_t size() const noexcept { return D; }

 protected:
  ExpandingArray() = default;
  static void check_count(size_t count) {
    if (count != D) {
      throw ValueError(str("ExpandingArray: expected ", D, " values, got ", count,
                           ". Hint: pass one value to use it for all ", D, ", or exactly ", D));
    }
  }

  std::array<T, D> values_{};
};

/// D optional values of type T: as ExpandingArray, and each value may be std::nullopt.
template <size_t D, class T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
  using Base = ExpandingArray<D, std::optional<T>>;

 public:
  using Base::Base;
  ExpandingArrayWithOptionalElem(T single) { this->values_.fill(single); }
  ExpandingArrayWithOptionalElem(std::initializer_list<T> values)
      : ExpandingArrayWithOptionalElem(ArrayRef<T>(values)) {}
  ExpandingArrayWithOptionalElem(const std::vector<T>& values)
      : ExpandingArrayWithOptionalElem(ArrayRef<T>(values)) {}
  ExpandingArrayWithOptionalElem(ArrayRef<T> values) {
    Base::check_count(values.size());
    std::copy(values.begin(), values.end(), this->values_.begin());
  }
  ExpandingArrayWithOptionalElem(const std::array<T, D>& values) {
    std::copy(values.begin(), values.end(), this->values_.begin());
  }
};

namespace expanding_array_detail {
template <class T>
void print_value(std::ostream& os, const T& value) {
  os << value;
}
template <class T>
void print_value(std::ostream& os, const std::optional<T>& value) {
  if (value) {
    os << *value;
  } else {
    os << "None";
  }
}
}  // namespace expanding_array_detail

/// Prints "3" for D == 1, else "[3, 3]"; a missing optional value prints as "None".
template <size_t D, class T>
std::ostream& operator<<(std::ostream& os, const ExpandingArray<D, T>& values) {
  if (D != 1) os << '[';
  for (size_t i = 0; i < D; ++i) {
    if (i > 0) os << ", ";
    expanding_array_detail::print_value(os, (*values)[i]);
  }
  if (D != 1) os << ']';
  return os;
}

}  // namespace ember
