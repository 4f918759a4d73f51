// ModuleList and ModuleDict: submodules held by position or by key, registered so their
// parameters show up in the parent, as LibTorch's torch::nn::ModuleList / ModuleDict. They have
// no forward; the owner decides how to call them.
//
//   nn::ModuleList layers(nn::Linear(3, 4), nn::Linear(4, 4));
//   for (const auto& m : *layers) x = m->as<nn::Linear>()->forward(x);
//   nn::ModuleDict heads({{"cls", nn::Linear(4, 10).ptr()}});
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  template <typename... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  ModuleListImpl(const ModuleListImpl& other);

  /// Appends a module (holder, shared_ptr or value), registered as "<index>".
  void push_back(std::shared_ptr<Module> module);
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(std::static_pointer_cast<Module>(holder.ptr()));
  }
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  void push_back(M&& module) {
    push_back(std::static_pointer_cast<Module>(
        std::make_shared<std::decay_t<M>>(std::forward<M>(module))));
  }
  /// Inserts before position `index` (index == size() appends); later entries are renamed.
  void insert(size_t index, std::shared_ptr<Module> module);
  template <typename M>
  void insert(size_t index, const ModuleHolder<M>& holder) {
    insert(index, std::static_pointer_cast<Module>(holder.ptr()));
  }
  /// Appends every module of `other` (sharing them).
  void extend(const ModuleListImpl& other);

  const std::shared_ptr<Module>& ptr(size_t index) const;
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  template <typename T>
  T& at(size_t index) const {
    auto* p = ptr(index)->template as<T>();
    if (!p) detail::throw_module_cast(ptr(index)->name(), typeid(T).name());
    return *p;
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }
  void pretty_print(std::ostream& stream) const override;

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

class EMBER_API ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(
      const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& items);
  ModuleDictImpl(const ModuleDictImpl& other);

  /// Adds `key` -> module, or replaces the module under an existing key (keeping its place).
  void insert(const std::string& key, std::shared_ptr<Module> module);
  template <typename M>
  void insert(const std::string& key, const ModuleHolder<M>& holder) {
    insert(key, std::static_pointer_cast<Module>(holder.ptr()));
  }
  /// insert() of every item.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items);
  /// Removes and returns the module under `key`.
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();

  std::shared_ptr<Module> operator[](const std::string& key) const;
  template <typename T>
  T& at(const std::string& key) const {
    auto* p = (*this)[key]->template as<T>();
    if (!p) detail::throw_module_cast((*this)[key]->name(), typeid(T).name());
    return *p;
  }
  bool contains(const std::string& key) const { return modules_.contains(key); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const {
    return modules_.items();
  }
  size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  void pretty_print(std::ostream& stream) const override;

 private:
  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Module"};
};
/// The holder of ModuleDictImpl, also constructible from a braced list of (key, module) pairs.
class ModuleDict : public ModuleHolder<ModuleDictImpl> {
 public:
  using ModuleHolder<ModuleDictImpl>::ModuleHolder;
  using Impl = ModuleDictImpl;
  ModuleDict() : ModuleHolder<ModuleDictImpl>() {}
  ModuleDict(std::initializer_list<std::pair<std::string, std::shared_ptr<Module>>> items)
      : ModuleHolder<ModuleDictImpl>(std::make_shared<ModuleDictImpl>(
            std::vector<std::pair<std::string, std::shared_ptr<Module>>>(items))) {}
};

}  // namespace ember::nn
