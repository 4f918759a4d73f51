// OrderedDict<Key, Value>: a dict that remembers insertion order, LibTorch's torch::OrderedDict.
// Module registries and state_dict() return it:
//   for (const auto& item : model->named_parameters())
//     std::cout << item.key() << ": " << item.value().sizes() << "\n";
// Lookup by key is a hash-map probe; iteration walks a vector in insertion order.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"

namespace ember {

template <typename Key, typename Value>
class OrderedDict {
 public:
  /// One entry: key() and value(), also usable as a pointer to the value.
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }
    Value& operator*() noexcept { return pair_.second; }
    const Value& operator*() const noexcept { return pair_.second; }
    Value* operator->() noexcept { return &pair_.second; }
    const Value* operator->() const noexcept { return &pair_.second; }

   private:
    std::pair<Key, Value> pair_;
  };
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  /// `key_description` names the keys in error messages ("Parameter", "Module", ...).
  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    for (const Item& item : items) insert(item.key(), item.value());
  }

  const std::string& key_description() const noexcept { return key_description_; }

  Item& front() { return items_.at(check_nonempty("front")); }
  const Item& front() const { return items_.at(check_nonempty("front")); }
  Item& back() { return items_.at(check_nonempty("back") + items_.size() - 1); }
  const Item& back() const { return items_.at(check_nonempty("back") + items_.size() - 1); }

  /// The item at insertion position `index`.
  Item& operator[](size_t index) { return items_.at(check_index(index)); }
  const Item& operator[](size_t index) const { return items_.at(check_index(index)); }
  /// The value of `key`; throws naming the key when it is absent.
  Value& operator[](const Key& key) { return items_[position_of(key)].value(); }
  const Value& operator[](const Key& key) const { return items_[position_of(key)].value(); }

  /// The value of `key`, or nullptr.
  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  void reserve(size_t n) {
    items_.reserve(n);
    index_.reserve(n);
  }

  /// Appends `key` -> `value`; throws when the key is already there.
  template <typename K, typename V>
  Value& insert(K&& key, V&& value) {
    if (index_.count(key))
      throw Error(key_description_ + " '" + describe(key) + "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(Key(std::forward<K>(key)), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  /// Replaces the value of an existing key in place (keeping its position) or appends it.
  template <typename K, typename V>
  Value& insert_or_assign(K&& key, V&& value) {
    if (Value* v = find(key)) return *v = std::forward<V>(value);
    return insert(std::forward<K>(key), std::forward<V>(value));
  }
  /// insert() of every item of `other`, in its order.
  void update(const OrderedDict& other) {
    for (const Item& item : other) insert(item.key(), item.value());
  }
  /// Removes `key` (later items move up one position); throws when absent.
  void erase(const Key& key) {
    size_t pos = position_of(key);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
    index_.erase(key);
    for (auto& entry : index_)
      if (entry.second > pos) --entry.second;
  }
  void clear() {
    items_.clear();
    index_.clear();
  }

  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.value());
    return out;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.pair());
    return out;
  }

 private:
  template <typename K>
  static std::string describe(const K& key) {
    if constexpr (std::is_convertible_v<const K&, std::string>) {
      return std::string(key);
    } else {
      return "<key>";
    }
  }
  size_t position_of(const Key& key) const {
    auto it = index_.find(key);
    if (it == index_.end())
      throw Error(key_description_ + " '" + describe(key) + "' is not defined");
    return it->second;
  }
  size_t check_index(size_t index) const {
    if (index >= items_.size())
      throw IndexError("OrderedDict: index " + std::to_string(index) + " is out of bounds for " +
                       std::to_string(items_.size()) + " items");
    return index;
  }
  size_t check_nonempty(const char* what) const {
    if (items_.empty()) throw Error(std::string("OrderedDict: ") + what + "() on an empty dict");
    return 0;
  }

  std::string key_description_;
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
