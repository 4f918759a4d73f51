#include "src/autograd/autograd_meta.h"

#include "src/core/check.h"

namespace ember {

namespace autograd {
AutogradMeta& materialize_autograd_meta(const Tensor& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (!impl->autograd_meta()) impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  return *static_cast<AutogradMeta*>(impl->autograd_meta());
}
}  // namespace autograd

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  EMBER_CHECK(defined(), "requires_grad_: called on an undefined tensor");
  EMBER_CHECK(!requires_grad || is_floating_point(),
              "requires_grad_: only tensors of floating point dtype can require gradients, got {}",
              dtype());
  autograd::materialize_autograd_meta(*this).requires_grad_ = requires_grad;
  return *this;
}

}  // namespace ember
