// IValue: a small tagged value (None, tensor, double, int, bool, string, int/double/tensor lists,
// and the containers a pickle holds: generic lists, tuples and insertion-ordered dicts), the type
// of a custom function's ctx->saved_data entries, of module hook arguments and of
// ember::pickle_load's result, as in LibTorch.
//
//   ember::IValue v = ember::pickle_load(bytes);
//   for (const auto& entry : v.toGenericDict())
//     std::cout << entry.key().toStringRef() << ": " << entry.value().toTensor().sizes() << "\n";
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

class GenericList;
class GenericDict;
struct Tuple;

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
  /// A generic list, tuple or dict. The containers are shared, as LibTorch's: copies of the
  /// IValue see the same elements (a null pointer is an empty container).
  IValue(std::shared_ptr<GenericList> list);  // NOLINT
  IValue(std::shared_ptr<Tuple> tuple);       // NOLINT
  IValue(std::shared_ptr<GenericDict> dict);  // NOLINT
  IValue(GenericList list);                   // NOLINT
  IValue(GenericDict dict);                   // NOLINT

  bool isNone() const { return v_.index() == 0; }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isDoubleList() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  /// A list of any kind: generic, int, double or tensor (LibTorch: every list is a List).
  bool isList() const { return isGenericList() || isIntList() || isDoubleList() || isTensorList(); }
  /// A list of IValues (what a pickle's lists load as).
  bool isGenericList() const { return std::holds_alternative<std::shared_ptr<GenericList>>(v_); }
  bool isTuple() const { return std::holds_alternative<std::shared_ptr<Tuple>>(v_); }
  bool isGenericDict() const { return std::holds_alternative<std::shared_ptr<GenericDict>>(v_); }

  /// Each accessor throws a TypeError naming both kinds when the value holds something else.
  const Tensor& toTensor() const { return get<Tensor>("Tensor"); }
  double toDouble() const { return get<double>("Double"); }
  int64_t toInt() const { return get<int64_t>("Int"); }
  bool toBool() const { return get<bool>("Bool"); }
  const std::string& toStringRef() const { return get<std::string>("String"); }
  std::vector<int64_t> toIntVector() const { return get<std::vector<int64_t>>("IntList"); }
  std::vector<double> toDoubleVector() const { return get<std::vector<double>>("DoubleList"); }
  const std::vector<Tensor>& toTensorList() const { return get<std::vector<Tensor>>("TensorList"); }
  /// Any list as a generic list: the same shared list for a generic one, a new list of the
  /// elements for an int, double or tensor list.
  std::shared_ptr<GenericList> toList() const;
  /// The tuple; `->elements()` are its values.
  const std::shared_ptr<Tuple>& toTuple() const { return get<std::shared_ptr<Tuple>>("Tuple"); }
  /// The dict (shared: entries inserted through the reference show in every copy).
  GenericDict& toGenericDict() const { return *get<std::shared_ptr<GenericDict>>("GenericDict"); }
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
               std::vector<double>, std::vector<Tensor>, std::shared_ptr<GenericList>,
               std::shared_ptr<Tuple>, std::shared_ptr<GenericDict>>
      v_;
};

/// A list of IValues (LibTorch's c10::List<IValue>).
class EMBER_API GenericList {
 public:
  GenericList() = default;
  explicit GenericList(std::vector<IValue> values) : values_(std::move(values)) {}
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  /// The element at `index`; IndexError past the end.
  const IValue& get(size_t index) const;
  const IValue& operator[](size_t index) const { return get(index); }
  void push_back(IValue value) { values_.push_back(std::move(value)); }
  void reserve(size_t n) { values_.reserve(n); }
  std::vector<IValue>::const_iterator begin() const { return values_.begin(); }
  std::vector<IValue>::const_iterator end() const { return values_.end(); }
  const std::vector<IValue>& vec() const { return values_; }

 private:
  std::vector<IValue> values_;
};

/// An immutable tuple (LibTorch's ivalue::Tuple).
struct EMBER_API Tuple {
  static std::shared_ptr<Tuple> create(std::vector<IValue> elements) {
    return std::make_shared<Tuple>(Tuple{std::move(elements)});
  }
  const std::vector<IValue>& elements() const { return elements_; }
  size_t size() const { return elements_.size(); }

  std::vector<IValue> elements_;
};

/// A dict of IValue keys (strings, ints, doubles, bools or None) to IValues, iterated in insertion
/// order (LibTorch's c10::Dict<IValue, IValue>, which pickles of OrderedDicts load as).
class EMBER_API GenericDict {
 public:
  /// One entry: key() and value(), as LibTorch's dict iterator yields.
  class Entry {
   public:
    Entry(IValue key, IValue value) : key_(std::move(key)), value_(std::move(value)) {}
    const IValue& key() const { return key_; }
    const IValue& value() const { return value_; }
    IValue& value() { return value_; }

   private:
    IValue key_, value_;
  };

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  /// Sets key -> value: a new key goes last, an existing one keeps its place (as Python's dict).
  /// TypeError for a key that is not a string, int, double, bool or None.
  void insert_or_assign(const IValue& key, IValue value);
  /// Whether `key` is present.
  bool contains(const IValue& key) const { return find(key) != nullptr; }
  /// The value for `key`; IndexError naming the key when absent.
  const IValue& at(const IValue& key) const;
  /// The value for `key`, or nullptr.
  const IValue* find(const IValue& key) const;
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }

 private:
  std::vector<Entry> entries_;
  // Key identity as Python hashes it for the key kinds a pickle holds ("s:" + string, "i:" + int,
  // ...): an O(1) probe, so a hostile pickle of many entries stays linear.
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember
