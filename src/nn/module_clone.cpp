// Deep copies for Cloneable<Derived>::clone() (see include/ember/nn/cloneable.h for the design).
#include <cstring>
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
    uint32_t uses_before = 0;
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
}  // namespace

CloneScope::CloneScope(const Module& original, const std::optional<Device>& device)
    : data_(new Data) {
  data_->original = &original;
  data_->device = device;
  data_->outer = t_scope;
  t_scope = data_;
}

CloneScope::~CloneScope() {
  t_scope = data_->outer;
  delete data_;
}

std::shared_ptr<Module> clone_of(const Module* original) {
  if (EMBER_LIKELY(t_scope == nullptr)) return nullptr;
  for (auto& c : t_scope->children)
    if (c.from.get() == original) return c.to;
  return nullptr;
}

void CloneScope::finish(Module& copy, void* object, size_t size) {
  // Tensor members of the copy still point at the original's tensors: find them among the
  // object's pointer-sized, aligned words (a Tensor is exactly one pointer to its impl) and
  // re-point them.
  static_assert(sizeof(Tensor) == sizeof(void*), "Tensor must be a single impl pointer");
  for (auto& t : data_->tensors) {
    uint32_t extra = t.from.use_count() - t.uses_before;
    if (extra == 0) continue;
    const void* target = t.from.unsafeGetTensorImpl();
    uint32_t fixed = 0;
    char* base = static_cast<char*>(object);
    for (size_t off = 0; off + sizeof(void*) <= size && fixed < extra; off += alignof(void*)) {
      const void* word;
      std::memcpy(&word, base + off, sizeof(word));
      if (word != target) continue;
      *reinterpret_cast<Tensor*>(base + off) = t.to;
      ++fixed;
    }
    EMBER_CHECK(fixed == extra,
                "clone: {} keeps {} reference(s) to '{}' outside its own members (e.g. in a "
                "std::vector), which clone cannot re-point. Hint: reach it through "
                "named_parameters()/named_buffers() or keep it in a direct Tensor member",
                copy.name(), extra - fixed, t.name);
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
      Tensor original = item.value();
      item.value() = deep_copy(original, scope->device);
      if (!original.defined()) continue;
      uint32_t uses =
          original.use_count();  // before `from` below adds one and `original` drops one
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
