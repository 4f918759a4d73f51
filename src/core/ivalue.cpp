#include "ember/core/ivalue.h"

#include <cstring>

#include "src/core/check.h"

namespace ember {

IValue::IValue(std::shared_ptr<GenericList> list)
    : v_(list ? std::move(list) : std::make_shared<GenericList>()) {}
IValue::IValue(std::shared_ptr<Tuple> tuple) : v_(tuple ? std::move(tuple) : Tuple::create({})) {}
IValue::IValue(std::shared_ptr<GenericDict> dict)
    : v_(dict ? std::move(dict) : std::make_shared<GenericDict>()) {}
IValue::IValue(GenericList list) : v_(std::make_shared<GenericList>(std::move(list))) {}
IValue::IValue(GenericDict dict) : v_(std::make_shared<GenericDict>(std::move(dict))) {}

const char* IValue::tagKind() const {
  static const char* kNames[] = {"None",       "Tensor",      "Double",  "Int",
                                 "Bool",       "String",      "IntList", "DoubleList",
                                 "TensorList", "GenericList", "Tuple",   "GenericDict"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == std::variant_size_v<decltype(v_)>);
  return kNames[v_.index()];
}

void IValue::throw_wrong_kind(const char* want) const {
  EMBER_CHECK_TYPE(false, "IValue: expected {} but the value holds {}", want, tagKind());
  __builtin_unreachable();
}

std::shared_ptr<GenericList> IValue::toList() const {
  if (isGenericList()) return std::get<std::shared_ptr<GenericList>>(v_);
  auto out = std::make_shared<GenericList>();
  auto copy = [&](const auto& values) {
    out->reserve(values.size());
    for (const auto& v : values) out->push_back(IValue(v));
  };
  if (isIntList()) {
    copy(std::get<std::vector<int64_t>>(v_));
  } else if (isDoubleList()) {
    copy(std::get<std::vector<double>>(v_));
  } else {
    copy(get<std::vector<Tensor>>("List"));
  }
  return out;
}

const IValue& GenericList::get(size_t index) const {
  EMBER_CHECK_INDEX(index < values_.size(), "GenericList: index {} is out of range for {} elements",
                    index, values_.size());
  return values_[index];
}

namespace {

// The dict index key of an IValue, or an empty string for a kind that cannot be a key.
std::string ivalue_dict_key(const IValue& key) {
  if (key.isString()) return "s:" + key.toStringRef();
  if (key.isInt()) return "i:" + std::to_string(key.toInt());
  if (key.isBool()) return key.toBool() ? "b:1" : "b:0";
  if (key.isNone()) return "n";
  if (key.isDouble()) {
    const double d = key.toDouble();
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return "d:" + std::to_string(bits);
  }
  return {};
}

}  // namespace

void GenericDict::insert_or_assign(const IValue& key, IValue value) {
  std::string k = ivalue_dict_key(key);
  EMBER_CHECK_TYPE(!k.empty(),
                   "GenericDict: a {} cannot be a key (string, int, double, bool or "
                   "None expected)",
                   key.tagKind());
  auto [it, inserted] = index_.emplace(std::move(k), entries_.size());
  if (inserted) {
    entries_.emplace_back(key, std::move(value));
  } else {
    entries_[it->second].value() = std::move(value);
  }
}

const IValue* GenericDict::find(const IValue& key) const {
  const std::string k = ivalue_dict_key(key);
  if (k.empty()) return nullptr;
  auto it = index_.find(k);
  return it == index_.end() ? nullptr : &entries_[it->second].value();
}

const IValue& GenericDict::at(const IValue& key) const {
  const IValue* v = find(key);
  EMBER_CHECK_INDEX(v != nullptr, "GenericDict: no key {}",
                    key.isString() ? "'" + key.toStringRef() + "'"
                    : key.isInt()  ? std::to_string(key.toInt())
                                   : std::string("of kind ") + key.tagKind());
  return *v;
}

}  // namespace ember
