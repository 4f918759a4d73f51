// Deep copies for Cloneable<Derived>::clone() (see include/ember/nn/cloneable.h for the design).
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

void CloneScope::finish(Module& copy, void* /*object*/, size_t /*size*/) {
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
    EMBER_CHECK(extra <= 0,
                "clone: {} holds submodule '{}' through a std::shared_ptr member, which would "
                "still point at the original. Hint: hold it in its ModuleHolder (e.g. "
                "nn::Linear) instead",
                copy.name(), c.name);
  }
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

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_CHECK(false,
              "clone: clone() is not implemented for {}. Hint: derive it from "
              "ember::nn::Cloneable<{}> instead of ember::nn::Module",
              name(), name());
  __builtin_unreachable();
}

}  // namespace ember::nn
