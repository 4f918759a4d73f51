// The autograd methods of Tensor: requires_grad_, grad, grad_fn, detach, retain_grad, hooks.
#include "ember/autograd/grad_mode.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/node_internal.h"
#include "src/core/check.h"

namespace ember {

using autograd::AutogradMeta;
using autograd::get_autograd_meta;
using autograd::materialize_autograd_meta;

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  EMBER_CHECK(defined(), "requires_grad_: called on an undefined tensor");
  EMBER_CHECK(!requires_grad || is_floating_point(),
              "requires_grad_: only tensors of floating point dtype can require gradients, got {}",
              dtype());
  if (!is_leaf()) {
    EMBER_CHECK(requires_grad,
                "requires_grad_: you can only change requires_grad flags of leaf variables. Hint: "
                "to use a computed tensor in a subgraph that doesn't require differentiation, use "
                "t.detach()");
    return *this;
  }
  if (!requires_grad && !impl()->autograd_meta()) return *this;
  materialize_autograd_meta(*this).requires_grad_ = requires_grad;
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor kNone;
  EMBER_CHECK(defined(), "grad: called on an undefined tensor");
  AutogradMeta* m = get_autograd_meta(*this);
  if (!m) return kNone;
  if (m->hooks_ && m->hooks_->retained_grad) return *m->hooks_->retained_grad;
  return m->grad_;
}

Tensor& Tensor::mutable_grad() const {
  EMBER_CHECK(defined(), "mutable_grad: called on an undefined tensor");
  AutogradMeta& m = materialize_autograd_meta(*this);
  if (m.hooks_ && m.hooks_->retained_grad) return *m.hooks_->retained_grad;
  return m.grad_;
}

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  EMBER_CHECK(defined(), "grad_fn: called on an undefined tensor");
  return autograd::grad_fn_of(*this);
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

uint32_t Tensor::output_nr() const {
  AutogradMeta* m = get_autograd_meta(*this);
  return m ? m->output_nr_ : 0;
}

Tensor Tensor::variable_data() const {
  EMBER_CHECK(defined(), "detach: called on an undefined tensor");
  TensorImpl* i = impl().get();
  return Tensor(make_intrusive<TensorImpl>(i->storage(), i->dtype(), i->sizes(), i->strides(),
                                           i->storage_offset()));
}

Tensor Tensor::detach() const { return variable_data(); }

const Tensor& Tensor::detach_() const {
  EMBER_CHECK(defined(), "detach_: called on an undefined tensor");
  EMBER_CHECK(!impl()->is_view() || !get_autograd_meta(*this) || !get_autograd_meta(*this)->view_,
              "detach_: can't detach views in-place. Hint: use detach() instead");
  if (AutogradMeta* m = get_autograd_meta(*this)) {
    m->grad_fn_ = nullptr;
    m->output_nr_ = 0;
    m->requires_grad_ = false;
  }
  return *this;
}

const Tensor& Tensor::retain_grad() const {
  EMBER_CHECK(defined(), "retain_grad: called on an undefined tensor");
  EMBER_CHECK(requires_grad(),
              "retain_grad: can't retain_grad on a tensor that has requires_grad=False");
  if (is_leaf()) return *this;  // leaves keep their gradient anyway
  AutogradMeta& m = materialize_autograd_meta(*this);
  if (!m.hooks_) m.hooks_ = std::make_unique<autograd::TensorHooks>();
  if (m.hooks_->retained_grad) return *this;
  auto slot = std::make_shared<Tensor>();
  m.hooks_->retained_grad = slot;
  autograd::NodeAccess::hooks(*grad_fn()).retained.emplace_back(m.output_nr_, slot);
  return *this;
}

bool Tensor::retains_grad() const {
  AutogradMeta* m = get_autograd_meta(*this);
  return m && m->hooks_ && m->hooks_->retained_grad;
}

unsigned Tensor::register_grad_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(defined(), "register_hook: called on an undefined tensor");
  EMBER_CHECK(requires_grad(),
              "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  auto id = static_cast<unsigned>(autograd::next_hook_id());
  if (is_leaf()) {
    AutogradMeta& m = materialize_autograd_meta(*this);
    if (!m.hooks_) m.hooks_ = std::make_unique<autograd::TensorHooks>();
    m.hooks_->grad_hooks.emplace_back(id, std::move(hook));
  } else {
    autograd::NodeAccess::hooks(*grad_fn())
        .tensor_pre_hooks.push_back({id, output_nr(), std::move(hook)});
  }
  return id;
}

void Tensor::remove_hook(unsigned handle) const {
  EMBER_CHECK(defined(), "remove_hook: called on an undefined tensor");
  if (AutogradMeta* m = get_autograd_meta(*this); m && m->hooks_) {
    auto erase = [handle](auto& list) {
      for (auto it = list.begin(); it != list.end(); ++it)
        if (it->first == handle) {
          list.erase(it);
          return true;
        }
      return false;
    };
    if (erase(m->hooks_->grad_hooks) || erase(m->hooks_->post_accumulate)) return;
  }
  if (const auto& fn = grad_fn()) fn->remove_hook(handle);
}

unsigned Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const {
  EMBER_CHECK(defined(), "register_post_accumulate_grad_hook: called on an undefined tensor");
  EMBER_CHECK(is_leaf() && requires_grad(),
              "register_post_accumulate_grad_hook: post accumulate grad hooks can only be "
              "registered on leaf tensors that require grad");
  auto id = static_cast<unsigned>(autograd::next_hook_id());
  AutogradMeta& m = materialize_autograd_meta(*this);
  if (!m.hooks_) m.hooks_ = std::make_unique<autograd::TensorHooks>();
  m.hooks_->post_accumulate.emplace_back(id, std::move(hook));
  return id;
}

const Tensor& Tensor::_base() const {
  static const Tensor kNone;
  EMBER_CHECK(defined(), "_base: called on an undefined tensor");
  if (!impl()->is_view()) return kNone;
  // The base impl is kept alive by the view; hand out a handle cached in the meta.
  AutogradMeta& m = materialize_autograd_meta(*this);
  if (!m.view_) m.view_ = std::make_unique<autograd::ViewInfo>();
  if (!m.view_->base.defined() || m.view_->base.unsafeGetTensorImpl() != impl()->view_base()) {
    m.view_->base = Tensor(intrusive_ptr<TensorImpl>(impl()->view_base()));
    m.view_->attr_version = impl()->version();
  }
  return m.view_->base;
}

bool Tensor::is_view() const { return defined() && impl()->is_view(); }

}  // namespace ember
