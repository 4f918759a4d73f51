#include "src/autograd/record.h"

#include "src/autograd/view_nodes.h"
#include "src/core/check.h"

namespace ember::autograd {

namespace {
Tensor view_base_of(const Tensor& view) {
  return Tensor(intrusive_ptr<TensorImpl>(view.unsafeGetTensorImpl()->view_base()));
}
}  // namespace

// PyTorch's two checks, in its order: a view that requires grad whose base is a leaf, then a leaf
// that requires grad. The second applies to views too: a view can itself be a leaf
// (requires_grad_ set on a view of a tensor that needs no grad).
void InplaceRecording::check_inplace(const char* op, const Tensor& self) {
  if (!self.requires_grad()) return;
  if (self.is_view()) {
    EMBER_CHECK(!view_base_of(self).is_leaf(),
                "{}: a view of a leaf Variable that requires grad is being used in an in-place "
                "operation. Hint: modify it under ember::NoGradGuard, or work on a copy",
                op);
  }
  EMBER_CHECK(!self.is_leaf(),
              "{}: a leaf Variable that requires grad is being used in an in-place operation. "
              "Hint: modify it under ember::NoGradGuard, or work on a copy",
              op);
}

void throw_out_differentiable(const char* op) {
  EMBER_CHECK(false,
              "{}: functions with out=... arguments don't support automatic differentiation, but "
              "one of the arguments requires grad. Hint: call the functional form, or run under "
              "ember::NoGradGuard",
              op);
  __builtin_unreachable();
}

void check_grad_count(const char* node_name, size_t got, size_t expected) {
  EMBER_CHECK(got == expected,
              "{}: the backward formula returned {} gradients, but the op has {} inputs", node_name,
              got, expected);
}

void rebase_history(const Tensor& self, std::shared_ptr<Node> node) {
  node->add_input_metadata(self);
  if (!self.is_view()) {
    set_history(self, node, 0);
    return;
  }
  // In-place on a view: the base's new history routes the view's part of the gradient through
  // `node`; the view then reads its history from the base.
  Tensor base = view_base_of(self);
  auto copy_slices = std::make_shared<CopySlices>(base, self, std::move(node));
  set_history(base, copy_slices, 0);
  set_history(self, std::make_shared<AsStridedViewBackward>(base, self), 0);
}

}  // namespace ember::autograd
