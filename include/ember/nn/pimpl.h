// ModuleHolder<Impl> and EMBER_MODULE: the shared-pointer handles users pass around, as
// LibTorch's torch::nn::ModuleHolder / TORCH_MODULE.
//
//   nn::Linear lin(3, 4);          // constructs a LinearImpl(3, 4) owned by a shared_ptr
//   Tensor y = lin(x);             // calls forward through the module's hooks
//   lin->weight;                   // members of the Impl
//   nn::Linear none = nullptr;     // empty; assign later
#pragma once

#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include "ember/nn/module.h"
#include "ember/nn/module_call.h"

namespace ember::nn {
namespace detail {
/// Inside Cloneable::clone(): the clone of `original` (a submodule being deep-copied), else null.
EMBER_API std::shared_ptr<Module> clone_of(const Module* original);
[[noreturn]] EMBER_API void throw_empty_holder(const std::string& type);
}  // namespace detail

template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  /// Default-constructs the module (a compile error when it has no default constructor: use
  /// `= nullptr` for an empty holder).
  ModuleHolder() : impl_(std::make_shared<Contained>()) {
    static_assert(std::is_default_constructible_v<Contained>,
                  "This module has no default constructor; use `= nullptr` for an empty holder");
  }
  /// An empty holder.
  ModuleHolder(std::nullptr_t) {}  // NOLINT: implicit, as LibTorch
  /// Constructs the module from the arguments of one of its constructors.
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<
                !(std::is_same_v<std::decay_t<Head>, ModuleHolder> && sizeof...(Tail) == 0) &&
                !std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
                !std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>>>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  /// Wraps an existing module.
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT
  /// Copies share the module, except inside Cloneable::clone(), where the copy holds the clone of
  /// the submodule (so members of a cloned module point into the clone).
  ModuleHolder(const ModuleHolder& other) : impl_(other.impl_) {
    if (impl_) {
      if (std::shared_ptr<Module> copy = detail::clone_of(impl_.get()))
        impl_ = std::dynamic_pointer_cast<Contained>(copy);
    }
  }
  ModuleHolder(ModuleHolder&&) noexcept = default;
  ModuleHolder& operator=(const ModuleHolder&) = default;
  ModuleHolder& operator=(ModuleHolder&&) noexcept = default;

  explicit operator bool() const noexcept { return impl_ != nullptr; }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check();
    return impl_;
  }
  Contained* get() {
    check();
    return impl_.get();
  }
  const Contained* get() const {
    check();
    return impl_.get();
  }

  /// Calls the module: forward(args...) with its hooks (module(x) in Python).
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return call_module(*get(), std::forward<Args>(args)...);
  }
  /// Indexing for containers (Sequential, ModuleList, ...).
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 private:
  void check() const {
    if (EMBER_UNLIKELY(!impl_)) detail::throw_empty_holder(typeid(Contained).name());
  }
  std::shared_ptr<Contained> impl_;
};

template <typename ModuleType>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<ModuleType>& module) {
  return stream << *module;
}

}  // namespace ember::nn

/// Declares the holder `Name` of the module class `NameImpl` (LibTorch's TORCH_MODULE).
#define EMBER_MODULE_IMPL(Name, ImplType)                    \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {  \
   public:                                                   \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder; \
    using Impl = ImplType;                                   \
  }
#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)
