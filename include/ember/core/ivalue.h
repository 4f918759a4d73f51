// IValue: a small tagged value (None, tensor, double, int, bool, string, int/double/tensor lists),
// the type of a custom function's ctx->saved_data entries and of module hook arguments, as in
// LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

class EMBER_API IValue {
 public:
  IValue() = default;
  IValue(Tensor t) : v_(std::move(t)) {}                // NOLINT: implicit, as LibTorch
  IValue(double d) : v_(d) {}                           // NOLINT
  IValue(int64_t i) : v_(i) {}                          // NOLINT
  IValue(int i) : v_(static_cast<int64_t>(i)) {}        // NOLINT
  IValue(bool b) : v_(b) {}                             // NOLINT
  IValue(std::string s) : v_(std::move(s)) {}           // NOLINT
  IValue(const char* s) : v_(std::string(s)) {}         // NOLINT: not bool
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT
  IValue(IntArrayRef v) : v_(v.vec()) {}                // NOLINT
  IValue(std::vector<double> v) : v_(std::move(v)) {}   // NOLINT
  IValue(std::vector<Tensor> v) : v_(std::move(v)) {}   // NOLINT

  bool isNone() const { return v_.index() == 0; }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isDoubleList() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(v_); }

  /// Each accessor throws a TypeError naming both kinds when the value holds something else.
  const Tensor& toTensor() const { return get<Tensor>("Tensor"); }
  double toDouble() const { return get<double>("Double"); }
  int64_t toInt() const { return get<int64_t>("Int"); }
  bool toBool() const { return get<bool>("Bool"); }
  const std::string& toStringRef() const { return get<std::string>("String"); }
  std::vector<int64_t> toIntVector() const { return get<std::vector<int64_t>>("IntList"); }
  std::vector<double> toDoubleVector() const { return get<std::vector<double>>("DoubleList"); }
  const std::vector<Tensor>& toTensorList() const { return get<std::vector<Tensor>>("TensorList"); }
  /// The kind held, e.g. "Int".
  const char* tagKind() const;

  /// The value as T, as nn::AnyValue::get<T>() in LibTorch: integral T reads an Int, floating T a
  /// Double, other T (Tensor, std::string, the lists) that very kind; a value of another kind is a
  /// TypeError naming both kinds, a T no kind holds does not compile.
  template <class T>
  T get() const {
    if constexpr (std::is_same_v<T, bool>) {
      return toBool();
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(toInt());
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(toDouble());
    } else if constexpr (std::is_same_v<T, Tensor>) {
      return toTensor();
    } else if constexpr (std::is_same_v<T, std::string>) {
      return toStringRef();
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      return toIntVector();
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      return toDoubleVector();
    } else {
      static_assert(std::is_same_v<T, std::vector<Tensor>>,
                    "IValue::get<T>: T must be a number, bool, Tensor, std::string or a vector of "
                    "int64_t, double or Tensor");
      return toTensorList();
    }
  }

 private:
  template <class T>
  const T& get(const char* want) const {
    if (const T* p = std::get_if<T>(&v_)) return *p;
    throw_wrong_kind(want);
  }
  [[noreturn]] void throw_wrong_kind(const char* want) const;

  std::variant<std::monostate, Tensor, double, int64_t, bool, std::string, std::vector<int64_t>,
               std::vector<double>, std::vector<Tensor>>
      v_;
};

}  // namespace ember
