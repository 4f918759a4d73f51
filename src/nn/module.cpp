// Module: registries, traversal, train/eval, to(), zero_grad, printing.
#include "ember/nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <sstream>
#include <typeinfo>
#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "src/core/check.h"
#include "src/nn/hook_lists.h"

namespace ember::nn {
namespace {

std::string demangle(const char* mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = (status == 0 && out) ? out : mangled;
  std::free(out);
  return name;
}

}  // namespace

namespace detail {
void throw_module_cast(const std::string& from, const char* to) {
  EMBER_CHECK_TYPE(false, "Module::as: {} is not a {}", from, demangle(to));
  __builtin_unreachable();
}
}  // namespace detail

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

Module::~Module() {
  if (hooks_) hooks_->owner = nullptr;  // handles outlive the module harmlessly
}

const std::string& Module::name() const noexcept {
  if (!name_) name_ = demangle(typeid(*this).name());
  return *name_;
}

void Module::check_new_name(const std::string& name, const char* what) const {
  EMBER_CHECK_VALUE(!name.empty(), "{}: the name must not be empty (in {})", what, this->name());
  EMBER_CHECK_VALUE(
      name.find('.') == std::string::npos,
      "{}: the name '{}' contains '.', which state_dict keys use as separator (in {})", what, name,
      this->name());
  const char* clash = parameters_.contains(name) ? "a parameter"
                      : buffers_.contains(name)  ? "a buffer"
                      : children_.contains(name) ? "a submodule"
                                                 : nullptr;
  EMBER_CHECK_VALUE(clash == nullptr, "{}: '{}' is already {} of {}", what, name, clash,
                    this->name());
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name(name, "register_parameter");
  if (tensor.defined()) {
    EMBER_CHECK_VALUE(!requires_grad || tensor.is_floating_point(),
                      "register_parameter: '{}' is {}; only floating-point tensors can require "
                      "grad. Hint: pass requires_grad = false or register it as a buffer",
                      name, to_string(tensor.scalar_type()));
    tensor.requires_grad_(requires_grad);
  }
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor, bool persistent) {
  check_new_name(name, "register_buffer");
  if (!persistent) non_persistent_buffers_.insert(name);
  return buffers_.insert(std::move(name), std::move(tensor));
}

Tensor Module::unregister_parameter(const std::string& name) {
  Tensor* p = parameters_.find(name);
  EMBER_CHECK_VALUE(p != nullptr, "unregister_parameter: {} has no parameter '{}'", this->name(),
                    name);
  Tensor out = *p;
  parameters_.erase(name);
  return out;
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  check_new_name(name, "register_module");
  EMBER_CHECK_VALUE(module != nullptr, "register_module: submodule '{}' of {} is empty", name,
                    this->name());
  children_.insert(std::move(name), std::move(module));
}

void Module::swap_child(const std::string& name, std::shared_ptr<Module> module) {
  std::shared_ptr<Module>* slot = children_.find(name);
  EMBER_CHECK_VALUE(slot != nullptr, "replace_module: {} has no submodule '{}'", this->name(),
                    name);
  EMBER_CHECK_VALUE(module != nullptr, "replace_module: the new submodule '{}' is empty", name);
  *slot = std::move(module);
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK_VALUE(children_.contains(name), "unregister_module: {} has no submodule '{}'",
                    this->name(), name);
  children_.erase(name);
}

// Pre-order over this module and its submodules, each once, with dotted names.
template <typename Fn>
void Module::walk(const std::string& prefix, bool include_self, const Fn& fn) const {
  std::unordered_set<const Module*> seen;
  auto visit = [&](auto& self, const Module& m, const std::string& name, bool report) -> void {
    if (!seen.insert(&m).second) return;
    if (report) fn(name, m);
    for (const auto& child : m.children_) {
      self(self, *child.value(), name.empty() ? child.key() : name + "." + child.key(), true);
    }
  };
  visit(visit, *this, prefix, include_self);
}

void Module::apply(const ModuleApplyFunction& fn) {
  walk("", true, [&](const std::string&, const Module& m) { fn(const_cast<Module&>(m)); });
}
void Module::apply(const ConstModuleApplyFunction& fn) const {
  walk("", true, [&](const std::string&, const Module& m) { fn(m); });
}
void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  walk(name_prefix, true,
       [&](const std::string& n, const Module& m) { fn(n, const_cast<Module&>(m)); });
}
void Module::apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix) const {
  walk(name_prefix, true, fn);
}
void Module::apply(const ModulePointerApplyFunction& fn) const {
  for (const auto& m : modules(true)) fn(m);
}
void Module::apply(const NamedModulePointerApplyFunction& fn,
                   const std::string& name_prefix) const {
  for (const auto& item : named_modules(name_prefix, true)) fn(item.key(), item.value());
}

namespace {
std::string join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}
}  // namespace

// The defined tensors of one registry (parameters_ or buffers_) of this module and, with
// recurse, its submodules, each tensor once, under dotted names.
OrderedDict<std::string, Tensor> Module::named_tensors(
    OrderedDict<std::string, Tensor> Module::*registry, const char* kind, bool recurse) const {
  OrderedDict<std::string, Tensor> out(kind);
  std::unordered_set<const TensorImpl*> seen;
  auto collect = [&](const std::string& prefix, const Module& m) {
    for (const auto& t : m.*registry)
      if (t.value().defined() && seen.insert(t.value().unsafeGetTensorImpl()).second)
        out.insert(join(prefix, t.key()), t.value());
  };
  if (recurse)
    walk("", true, collect);
  else
    collect("", *this);
  return out;
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  return named_tensors(&Module::parameters_, "Parameter", recurse);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return named_parameters(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  return named_tensors(&Module::buffers_, "Buffer", recurse);
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(
    const std::string& name_prefix, bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  if (include_self) {
    std::shared_ptr<const Module> self = weak_from_this().lock();
    EMBER_CHECK(self != nullptr,
                "named_modules: {} is not owned by a std::shared_ptr, so include_self cannot "
                "return it. Hint: create it through its holder or std::make_shared, or pass "
                "include_self = false",
                name());
    out.insert(name_prefix, std::const_pointer_cast<Module>(self));
  }
  std::unordered_set<const Module*> seen{this};
  auto visit = [&](auto& self, const Module& m, const std::string& prefix) -> void {
    for (const auto& child : m.children_) {
      if (!seen.insert(child.value().get()).second) continue;
      std::string name = join(prefix, child.key());
      out.insert(name, child.value());
      self(self, *child.value(), name);
    }
  };
  visit(visit, *this, name_prefix);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  std::unordered_set<const Module*> seen;
  for (const auto& child : children_)
    if (seen.insert(child.value().get()).second) out.insert(child.key(), child.value());
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return named_children().values(); }

void Module::train(bool on) {
  for (auto& child : children_) child.value()->train(on);
  is_training_ = on;
}
void Module::eval() { train(false); }
bool Module::is_training() const noexcept { return is_training_; }

namespace {

// Re-points `t`'s impl at a moved/cast copy, so every handle to it sees the change.
void move_in_place(const Tensor& t, const std::optional<Device>& device,
                   std::optional<ScalarType> dtype, bool non_blocking) {
  if (!t.defined()) return;
  ScalarType target = (dtype && t.is_floating_point()) ? *dtype : t.scalar_type();
  Device dev = device ? *device : t.device();
  if (target == t.scalar_type() && dev == t.device()) return;
  Tensor moved = t.variable_data().to(dev, target, non_blocking, /*copy=*/false);
  TensorImpl* impl = t.unsafeGetTensorImpl();
  TensorImpl* src = moved.unsafeGetTensorImpl();
  impl->set_storage(src->storage(), src->dtype(), src->sizes(), src->strides(),
                    src->storage_offset());
}

}  // namespace

static void module_to(Module& m, const std::optional<Device>& device,
                      std::optional<ScalarType> dtype, bool non_blocking) {
  autograd::NoGradGuard no_grad;
  if (dtype) {
    EMBER_CHECK_TYPE(is_floating_point(*dtype), "Module::to: dtype must be floating point, got {}",
                     to_string(*dtype));
  }
  for (const Tensor& p : m.parameters()) {
    move_in_place(p, device, dtype, non_blocking);
    if (p.grad().defined()) move_in_place(p.grad(), device, dtype, non_blocking);
  }
  for (const Tensor& b : m.buffers()) move_in_place(b, device, dtype, non_blocking);
}

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  module_to(*this, device, dtype, non_blocking);
}
void Module::to(ScalarType dtype, bool non_blocking) {
  module_to(*this, std::nullopt, dtype, non_blocking);
}
void Module::to(Device device, bool non_blocking) {
  module_to(*this, device, std::nullopt, non_blocking);
}

void Module::zero_grad(bool set_to_none) {
  for (const Tensor& p : parameters()) {
    Tensor& grad = p.mutable_grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      grad = Tensor();
    } else {
      if (grad.grad_fn())
        grad.detach_();
      else
        grad.requires_grad_(false);
      grad.zero_();
    }
  }
}

std::shared_ptr<Module> Module::get_submodule(const std::string& target) const {
  std::shared_ptr<const Module> cur;
  if (target.empty()) {
    cur = weak_from_this().lock();
    EMBER_CHECK(cur != nullptr, "get_submodule: {} is not owned by a std::shared_ptr", name());
    return std::const_pointer_cast<Module>(cur);
  }
  const Module* m = this;
  std::shared_ptr<Module> found;
  std::string walked;
  size_t start = 0;
  while (start <= target.size()) {
    size_t dot = target.find('.', start);
    std::string part = target.substr(start, dot == std::string::npos ? dot : dot - start);
    const std::shared_ptr<Module>* child = m->children_.find(part);
    EMBER_CHECK_VALUE(child != nullptr, "get_submodule: {} has no submodule '{}' (looking up '{}')",
                      walked.empty() ? m->name() : walked + " (" + m->name() + ")", part, target);
    found = *child;
    m = found.get();
    walked = join(walked, part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return found;
}

namespace {
std::pair<std::string, std::string> split_last(const std::string& target) {
  size_t dot = target.rfind('.');
  if (dot == std::string::npos) return {"", target};
  return {target.substr(0, dot), target.substr(dot + 1)};
}
}  // namespace

// The tensor `target` ("a.b.weight") names in one registry of the submodule it lives in.
Tensor Module::get_tensor(const std::string& target,
                          OrderedDict<std::string, Tensor> Module::*registry, const char* op,
                          const char* kind) const {
  auto [path, leaf] = split_last(target);
  std::shared_ptr<Module> holder = path.empty() ? nullptr : get_submodule(path);
  const Module* owner = holder ? holder.get() : this;
  const Tensor* t = (owner->*registry).find(leaf);
  EMBER_CHECK_VALUE(t != nullptr, "{}: {} has no {} '{}' (looking up '{}')", op, owner->name(),
                    kind, leaf, target);
  return *t;
}

Tensor Module::get_parameter(const std::string& target) const {
  return get_tensor(target, &Module::parameters_, "get_parameter", "parameter");
}

Tensor Module::get_buffer(const std::string& target) const {
  return get_tensor(target, &Module::buffers_, "get_buffer", "buffer");
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string inner = indentation + "  ";
  for (const auto& child : children_) {
    stream << inner << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, inner);
    stream << "\n";
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

}  // namespace ember::nn
