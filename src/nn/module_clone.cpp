// Deep copies for Cloneable<Derived>::clone() (see include/ember/nn/cloneable.h for the design).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_map>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"
#include "src/core/check.h"

namespace ember::nn {
namespace detail {

struct CloneScope::Data {
  const Module* original = nullptr;
  std::optional<Device> device;
  CloneScope::Data* outer = nullptr;
  // Registered tensors of `original`, their copies, and the original's use count right after the
  // registry was copied (every reference added later comes from a member of the copy).
  struct TensorCopy {
    Tensor from, to;
    std::string name;
    int64_t uses_before = 0;
  };
  std::vector<TensorCopy> tensors;
  struct ChildCopy {
    std::shared_ptr<Module> from, to;
    std::string name;
    long uses_before = 0;
  };
  std::vector<ChildCopy> children;
};

namespace {
thread_local CloneScope::Data* t_scope = nullptr;

// Tensor copies on this thread during a clone: a registered tensor of the module being cloned
// becomes its clone.
TensorImpl* remap_to_clone(void* context, const TensorImpl* impl) {
  auto* data = static_cast<CloneScope::Data*>(context);
  for (auto& t : data->tensors)
    if (t.from.unsafeGetTensorImpl() == impl) return t.to.unsafeGetTensorImpl();
  return nullptr;
}
}  // namespace

CloneScope::CloneScope(const Module& original, const std::optional<Device>& device)
    : data_(new Data) {
  data_->original = &original;
  data_->device = device;
  data_->outer = t_scope;
  t_scope = data_;
  previous_remap_ = ::ember::detail::set_thread_tensor_remap(&remap_to_clone, data_);
  ::ember::detail::active_tensor_remaps.fetch_add(1, std::memory_order_relaxed);
}

CloneScope::~CloneScope() {
  ::ember::detail::active_tensor_remaps.fetch_sub(1, std::memory_order_relaxed);
  ::ember::detail::set_thread_tensor_remap(previous_remap_.first, previous_remap_.second);
  t_scope = data_->outer;
  delete data_;
}

std::shared_ptr<Module> clone_of(const Module* original) {
  if (EMBER_LIKELY(t_scope == nullptr)) return nullptr;
  for (auto& c : t_scope->children)
    if (c.from.get() == original) return c.to;
  return nullptr;
}

bool CloneScope::finish(Module& copy, bool can_reset) {
  // Every Tensor member copied while the scope was active was re-pointed at its clone (see
  // remap_to_clone); a reference to an original that remains was made some other way.
  for (auto& t : data_->tensors) {
    int64_t extra = static_cast<int64_t>(t.from.use_count()) - t.uses_before;
    EMBER_CHECK(extra <= 0,
                "clone: {} still refers to the original of '{}' after copying (e.g. through a raw "
                "TensorImpl pointer or a tensor built from its storage). Hint: copy Tensor "
                "members as Tensors, or reach them through named_parameters()/named_buffers()",
                copy.name(), t.name);
  }
  for (auto& c : data_->children) {
    long extra = c.from.use_count() - c.uses_before;
    if (extra <= 0) continue;
    if (can_reset) return false;
    EMBER_CHECK(false,
                "clone: {} holds submodule '{}' through a std::shared_ptr member, which would "
                "still point at the original. Hint: hold it in its ModuleHolder (e.g. "
                "nn::Linear), or override reset() to register it, as LibTorch's Cloneable "
                "expects",
                copy.name(), c.name);
  }
  return true;
}

}  // namespace detail

namespace {

Tensor deep_copy(const Tensor& t, const std::optional<Device>& device) {
  if (!t.defined()) return t;
  autograd::NoGradGuard no_grad;
  Tensor out = device ? t.variable_data().to(*device, t.scalar_type(), false, /*copy=*/true)
                      : t.variable_data().clone();
  out.requires_grad_(t.requires_grad());
  if (t.grad().defined()) out.mutable_grad() = deep_copy(t.grad(), device);
  return out;
}

}  // namespace

Module::Module(const Module& other)
    : std::enable_shared_from_this<Module>(),
      parameters_(other.parameters_),
      buffers_(other.buffers_),
      non_persistent_buffers_(other.non_persistent_buffers_),
      children_(other.children_),
      name_(other.name_),
      is_training_(other.is_training_) {
  detail::CloneScope::Data* scope = detail::t_scope;
  if (!scope || scope->original != &other) return;  // a plain copy shares everything
  for (auto* registry : {&parameters_, &buffers_}) {
    for (auto& item : *registry) {
      // A tensor registered twice (shared) was remapped to its clone by this copy: keep sharing.
      Tensor original = item.value();
      bool cloned_already = false;
      for (const auto& t : scope->tensors) cloned_already |= t.to.is_same(original);
      if (cloned_already || !original.defined()) {
        item.value() = original;
        continue;
      }
      item.value() = deep_copy(original, scope->device);
      const int64_t uses = original.use_count();  // `from` below adds one, `original` drops one
      scope->tensors.push_back({original, item.value(), item.key(), uses});
    }
  }
  for (auto& item : children_) {
    std::shared_ptr<Module> original = item.value();
    item.value() = original->clone(scope->device);
    long uses = original.use_count();
    scope->children.push_back({original, item.value(), item.key(), uses});
  }
}

namespace {
// Gives `target` (a tensor reset() made, which members may hold) the data of a deep copy of
// `source`, keeping target's impl so that every handle to it sees the change.
void take_copy_of(const Tensor& target, const Tensor& source, const std::optional<Device>& device) {
  Tensor copied = deep_copy(source, device);
  TensorImpl* impl = target.unsafeGetTensorImpl();
  TensorImpl* src = copied.unsafeGetTensorImpl();
  impl->set_storage(src->storage(), src->dtype(), src->sizes(), src->strides(),
                    src->storage_offset());
  target.requires_grad_(source.requires_grad());
  target.mutable_grad() = copied.grad();
}

void check_same_keys(const Module& copy, const OrderedDict<std::string, Tensor>& made,
                     const OrderedDict<std::string, Tensor>& original, const char* kind) {
  auto sorted = [](std::vector<std::string> keys) {
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  EMBER_CHECK(sorted(made.keys()) == sorted(original.keys()),
              "clone: the reset() of {} registered the {} [{}], but the original has [{}]. Hint: "
              "reset() must register every parameter, buffer and submodule, as LibTorch's "
              "Cloneable expects",
              copy.name(), kind, fmt::join(made.keys(), ", "), fmt::join(original.keys(), ", "));
}
}  // namespace

void Module::clone_by_reset(const Module& original, const std::optional<Device>& device,
                            const std::function<void()>& reset) {
  autograd::NoGradGuard no_grad;
  parameters_.clear();
  buffers_.clear();
  non_persistent_buffers_.clear();
  children_.clear();
  reset();
  const auto params = named_parameters(), buffers = named_buffers();
  const auto original_params = original.named_parameters();
  const auto original_buffers = original.named_buffers();
  check_same_keys(*this, params, original_params, "parameters");
  check_same_keys(*this, buffers, original_buffers, "buffers");
  for (const auto& item : original_params) take_copy_of(params[item.key()], item.value(), device);
  for (const auto& item : original_buffers) take_copy_of(buffers[item.key()], item.value(), device);
  // Training flags, module by module (the ones reset() made start in training mode).
  std::unordered_map<std::string, bool> training;
  original.apply(ConstNamedModuleApplyFunction(
      [&](const std::string& name, const Module& m) { training[name] = m.is_training(); }));
  apply(NamedModuleApplyFunction([&](const std::string& name, Module& m) {
    auto it = training.find(name);
    if (it != training.end()) m.is_training_ = it->second;
  }));
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_CHECK(false,
              "clone: clone() is not implemented for {}. Hint: derive it from "
              "ember::nn::Cloneable<{}> instead of ember::nn::Module",
              name(), name());
  __builtin_unreachable();
}

}  // namespace ember::nn
