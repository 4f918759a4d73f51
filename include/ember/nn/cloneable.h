// Cloneable<Derived>: gives a module clone(), the deep copy DataParallel replicates, as
// LibTorch's torch::nn::Cloneable but without its trap: LibTorch's clone() re-runs a reset()
// that every subclass must write to re-create its parameters, and a module that registers them
// in its constructor instead silently clones wrong. Here clone() copy-constructs Derived while
// Module's copy constructor deep-copies the registries, holders of submodules pick up the
// submodules' clones, and every Tensor copied on this thread while the clone runs that is a
// registered parameter or buffer of the original becomes the clone's (Tensor's copy constructor
// asks; see detail::active_tensor_remaps), so Tensor members point into the copy. What it cannot
// re-point (a std::shared_ptr member to a submodule) makes clone() fall back to LibTorch's
// way when Derived overrides reset(): a copy whose reset() re-creates its parameters and
// submodules (so the member points at the new one), given the original's tensors by name. Without
// a reset() of its own, such a module cannot be cloned, and clone() says so.
//
//   struct NetImpl : nn::Cloneable<NetImpl> {
//     NetImpl() { w = register_parameter("w", ember::randn({3})); fc = register_module(...); }
//     Tensor w; nn::Linear fc{nullptr};
//   };
//   auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/nn/module.h"

namespace ember::nn {
namespace detail {

/// The state of one clone() on this thread: Module's copy constructor and ModuleHolder's consult
/// it; finish() re-points the copy's Tensor members.
class EMBER_API CloneScope {
 public:
  CloneScope(const Module& original, const std::optional<Device>& device);
  ~CloneScope();
  CloneScope(const CloneScope&) = delete;
  CloneScope& operator=(const CloneScope&) = delete;
  /// Checks that nothing in the copy still refers to the original's tensors or submodules. A
  /// submodule still held through a std::shared_ptr member returns false when `can_reset` (the
  /// caller then clones by reset()), and is an Error otherwise.
  bool finish(Module& copy, bool can_reset);

  struct Data;

 private:
  Data* data_;
  std::pair<::ember::detail::TensorRemapFn, void*> previous_remap_;
};

}  // namespace detail

template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  /// LibTorch's hook to (re)create parameters; clone() does not need it. Built-in layers use it
  /// from their constructors, and reset_parameters() re-initialises them.
  virtual void reset() {}

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    const auto& self = static_cast<const Derived&>(*this);
    {
      detail::CloneScope scope(*this, device);
      auto copy = std::make_shared<Derived>(self);
      if (scope.finish(*copy, overrides_reset())) return copy;
    }
    auto copy = std::make_shared<Derived>(self);  // outside a scope: shares, until reset()
    copy->clone_by_reset(*this, device, [&copy] { copy->reset(); });
    return copy;
  }

 private:
  // Whether Derived (or a class between it and Cloneable) declares its own reset().
  static constexpr bool overrides_reset() {
    return !std::is_same_v<decltype(&Derived::reset), void (Cloneable::*)()>;
  }
};

}  // namespace ember::nn
