// nn::Module: the base of every layer and of users' own models, as LibTorch's torch::nn::Module,
// with the parts only Python's torch.nn.Module has (hooks, state_dict with strict loading,
// non-persistent buffers, get_submodule).
//
//   struct NetImpl : ember::nn::Module {
//     NetImpl() : fc1(register_module("fc1", nn::Linear(784, 64))),
//                 fc2(register_module("fc2", nn::Linear(64, 10))) {}
//     Tensor forward(Tensor x) { return fc2(ember::relu(fc1(x))); }
//     nn::Linear fc1, fc2;
//   };
//   EMBER_MODULE(Net);
//
// Registries keep registration order; traversal is pre-order (a module, then its children in
// order) and visits a shared module or tensor once, so state_dict() keys are the dotted names
// Python gives the same architecture ("fc1.weight", "layers.0.bias").
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/ordered_dict.h"
#include "ember/core/scalar_type.h"
#include "ember/core/tensor.h"
#include "ember/nn/hooks.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::nn {

template <typename Contained>
class ModuleHolder;

namespace detail {
struct HookLists;
template <typename Fn>
struct HookList;
/// Cheap test for the call path: is any process-wide module hook registered?
EMBER_API bool global_module_hooks_present() noexcept;
[[noreturn]] EMBER_API void throw_module_cast(const std::string& from, const char* to);
}  // namespace detail

class EMBER_API Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction =
      std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  /// `name` is what name() and printing show; by default the demangled class name.
  explicit Module(std::string name);
  Module();
  /// Copies share tensors and submodules (as a C++ copy of LibTorch's Module does), except inside
  /// Cloneable::clone(), where they are deep copies.
  Module(const Module& other);
  Module& operator=(const Module&) = delete;
  virtual ~Module();

  /// The module's name, e.g. "ember::nn::LinearImpl" or the one given to the constructor.
  const std::string& name() const noexcept;

  /// A deep copy (parameters, buffers, gradients, submodules), optionally on `device`. Modules
  /// derive from Cloneable<Derived> to support it (all built-in layers do); no reset() needed.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  /// Calls `fn` on this module and every submodule, pre-order.
  void apply(const ModuleApplyFunction& fn);
  void apply(const ConstModuleApplyFunction& fn) const;
  /// The same with each module's dotted name ("" for this one, or `name_prefix`).
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = std::string());
  void apply(const ConstNamedModuleApplyFunction& fn,
             const std::string& name_prefix = std::string()) const;
  /// For a module owned by a shared_ptr (a holder's), with pointers.
  void apply(const ModulePointerApplyFunction& fn) const;
  void apply(const NamedModulePointerApplyFunction& fn,
             const std::string& name_prefix = std::string()) const;

  /// Parameters of this module and (recurse) its submodules; undefined ones are skipped.
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  /// Buffers, persistent or not.
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  /// This module (include_self; needs shared ownership) and all submodules, pre-order.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(
      const std::string& name_prefix = std::string(), bool include_self = true) const;
  /// Direct submodules.
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  /// Sets training mode on this module and every submodule.
  virtual void train(bool on = true);
  /// train(false).
  void eval();
  virtual bool is_training() const noexcept;

  /// Moves and/or casts every parameter and buffer (and gradient) in place: Tensor handles the
  /// user holds stay valid. dtype casts apply to floating-point tensors only, as PyTorch.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  /// Resets the gradients of all parameters: to undefined (set_to_none) or to zeros. The default
  /// is true, as in the newest LibTorch and Python (LibTorch 1.13 defaulted to false): code that
  /// reads p.grad() right after zero_grad() gets an undefined tensor, not zeros.
  virtual void zero_grad(bool set_to_none = true);

  /// This module as `ModuleType` (a holder like nn::Linear or an Impl), or nullptr.
  template <typename ModuleType>
  typename ModuleType::ContainedType* as() noexcept {
    return as<typename ModuleType::ContainedType>();
  }
  template <typename ModuleType>
  const typename ModuleType::ContainedType* as() const noexcept {
    return as<typename ModuleType::ContainedType>();
  }
  template <typename ModuleType, typename = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  ModuleType* as() noexcept {
    return dynamic_cast<ModuleType*>(this);
  }
  template <typename ModuleType, typename = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  const ModuleType* as() const noexcept {
    return dynamic_cast<const ModuleType*>(this);
  }

  /// One line describing this module (no children): its name, or "Linear(in_features=...)".
  virtual void pretty_print(std::ostream& stream) const;
  virtual bool is_serializable() const { return true; }

  /// Writes this module into `archive` as LibTorch's Module::save: parameters, then persistent
  /// buffers (is_buffer), then each serializable submodule as a nested archive under its name.
  /// ember::save(module, path) calls it.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads what save() wrote (or a state_dict file's tensors) into this module's tensors in place,
  /// converting dtype and device. Everything is checked first (missing keys, shapes, kinds): a
  /// mismatch is one Error listing every problem, and then nothing has been changed.
  virtual void load(serialize::InputArchive& archive);

  /// Adds a parameter (an undefined tensor registers "no parameter", like Python's None).
  /// Throws for an empty name, a name with '.', or one already used by a parameter, buffer or
  /// submodule.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  /// Adds a buffer; a non-persistent one stays out of state_dict().
  Tensor& register_buffer(std::string name, Tensor tensor, bool persistent = true);
  /// Adds a submodule and returns it.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module) {
    add_child(std::move(name), module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              ModuleHolder<ModuleType> module_holder) {
    return register_module(std::move(name), module_holder.ptr());
  }
  /// Replaces the submodule `name` (which must exist) and returns the new one.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             std::shared_ptr<ModuleType> module) {
    swap_child(name, module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             ModuleHolder<ModuleType> module_holder) {
    return replace_module(name, module_holder.ptr());
  }
  /// Removes the submodule `name`; throws when there is none.
  void unregister_module(const std::string& name);

  /// The submodule at a dotted path ("encoder.layers.0"); "" is this module (needs shared
  /// ownership). Throws naming the first missing part.
  std::shared_ptr<Module> get_submodule(const std::string& target) const;
  /// The parameter / buffer at a dotted path ("encoder.fc.weight").
  Tensor get_parameter(const std::string& target) const;
  Tensor get_buffer(const std::string& target) const;

  /// Parameters and persistent buffers under dotted names, detached unless keep_vars.
  StateDict state_dict(const std::string& prefix = std::string(), bool keep_vars = false) const;
  /// Copies every matching entry into this module's tensors in place, under no-grad. Shape or
  /// dtype mismatches, and (strict) missing or unexpected keys, throw one Error listing every
  /// problem, and then nothing has been changed.
  IncompatibleKeys load_state_dict(const StateDict& state_dict, bool strict = true);

  // ---- Hooks (Python semantics). They run when the module is called through a holder
  //      (`lin(x)`), a Sequential or call(); a direct `->forward(x)` bypasses them. ----
  RemovableHandle register_forward_pre_hook(ForwardPreHook hook, bool prepend = false);
  RemovableHandle register_forward_hook(ForwardHook hook, bool prepend = false);
  RemovableHandle register_full_backward_pre_hook(BackwardPreHook hook, bool prepend = false);
  RemovableHandle register_full_backward_hook(BackwardHook hook, bool prepend = false);
  RemovableHandle register_state_dict_pre_hook(StateDictPreHook hook);
  RemovableHandle register_state_dict_post_hook(StateDictPostHook hook);
  RemovableHandle register_load_state_dict_pre_hook(LoadStateDictPreHook hook);
  RemovableHandle register_load_state_dict_post_hook(LoadStateDictPostHook hook);

  /// Whether a call must take the hook path (a module or process-wide forward/backward hook).
  bool has_call_hooks() const noexcept {
    return call_hooks_ != 0 || detail::global_module_hooks_present();
  }
  /// The hook lists, or null when none was ever registered (for the call path).
  detail::HookLists* hook_lists() const noexcept { return hooks_.get(); }

 protected:
  /// Registries, for containers and Cloneable.
  const OrderedDict<std::string, Tensor>& parameters_registry() const { return parameters_; }
  const OrderedDict<std::string, Tensor>& buffers_registry() const { return buffers_; }
  const OrderedDict<std::string, std::shared_ptr<Module>>& children_registry() const {
    return children_;
  }
  bool is_persistent_buffer(const std::string& name) const {
    return non_persistent_buffers_.count(name) == 0;
  }
  /// For ParameterList/ParameterDict: the registry itself, and removal (Python's `del`).
  OrderedDict<std::string, Tensor>& mutable_parameters_registry() { return parameters_; }
  Tensor unregister_parameter(const std::string& name);
  /// For Cloneable::clone() of a module that holds a submodule through a std::shared_ptr member
  /// (LibTorch's way, see cloneable.h): empties this copy's registries, lets `reset` re-create
  /// them, then gives what it made the original's parameters and buffers (deep copies, by name,
  /// onto `device`) and training flags.
  void clone_by_reset(const Module& original, const std::optional<Device>& device,
                      const std::function<void()>& reset);

 private:
  friend struct detail::HookLists;
  friend EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

  void add_child(std::string name, std::shared_ptr<Module> module);
  void swap_child(const std::string& name, std::shared_ptr<Module> module);
  void check_new_name(const std::string& name, const char* what) const;
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  detail::HookLists& hooks();
  template <typename Fn>
  RemovableHandle add_hook(detail::HookList<Fn> detail::HookLists::*list, Fn hook, bool prepend);
  void refresh_call_hooks() noexcept;
  template <typename Fn>
  void walk(const std::string& prefix, bool include_self, const Fn& fn) const;
  OrderedDict<std::string, Tensor> named_tensors(OrderedDict<std::string, Tensor> Module::*registry,
                                                 const char* kind, bool recurse) const;
  Tensor get_tensor(const std::string& target, OrderedDict<std::string, Tensor> Module::*registry,
                    const char* op, const char* kind) const;

  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  std::unordered_set<std::string> non_persistent_buffers_;
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};
  mutable std::optional<std::string> name_;
  bool is_training_ = true;
  /// Number of forward/backward hooks on this module: the one test a plain call makes.
  int call_hooks_ = 0;
  std::shared_ptr<detail::HookLists> hooks_;
};

/// Prints the module tree as LibTorch does:
///   Net(
///     (fc1): ember::nn::Linear(in_features=784, out_features=64, bias=true)
///   )
EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace ember::nn
