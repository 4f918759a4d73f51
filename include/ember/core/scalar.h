// A number that is not a tensor: a double, an int64 or a bool, tagged. Used for scalar operands
// (`x + 1`, `x.fill_(2.5)`) and for `item()`.
#pragma once

#include <cstdint>
#include <ostream>
#include <type_traits>

#include "ember/core/half.h"
#include "ember/core/macros.h"
#include "ember/core/scalar_type.h"

namespace ember {

class EMBER_API Scalar {
 public:
  enum class Kind : uint8_t { Float, Int, Bool };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { v_.i = v; }
  Scalar(double v) : kind_(Kind::Float) { v_.d = v; }
  Scalar(float v) : Scalar(double(v)) {}
  Scalar(Half v) : Scalar(double(float(v))) {}
  Scalar(BFloat16 v) : Scalar(double(float(v))) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int) {
    v_.i = static_cast<int64_t>(v);
  }

  Kind kind() const { return kind_; }
  bool isFloatingPoint() const { return kind_ == Kind::Float; }
  bool isIntegral(bool include_bool) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  bool isBoolean() const { return kind_ == Kind::Bool; }

  double toDouble() const { return kind_ == Kind::Float ? v_.d : static_cast<double>(v_.i); }
  float toFloat() const { return static_cast<float>(toDouble()); }
  int64_t toLong() const { return kind_ == Kind::Float ? static_cast<int64_t>(v_.d) : v_.i; }
  int toInt() const { return static_cast<int>(toLong()); }
  bool toBool() const { return kind_ == Kind::Float ? v_.d != 0 : v_.i != 0; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>)
      return toBool();
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(toLong());
    else
      return static_cast<T>(static_cast<float>(toDouble()));
  }
  /// The dtype of the value as held: double, int64 or bool (promotion treats it by category).
  ScalarType type() const;
  Scalar operator-() const;

 private:
  Kind kind_;
  union {
    double d;
    int64_t i;
  } v_;
};

template <>
inline double Scalar::to<double>() const {
  return toDouble();
}

EMBER_API std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
