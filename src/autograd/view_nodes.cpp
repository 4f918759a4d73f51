#include "src/autograd/view_nodes.h"

#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/engine_state.h"
#include "src/core/check.h"

namespace ember::autograd {

Tensor zeros_with_geometry(const Geometry& g, const TensorOptions& options) {
  // A base is never a view, so its strides describe dense memory (or a from_blob/empty_strided
  // layout); reproducing them makes the view's own strides and offset valid on the gradient.
  return empty_strided(g.sizes, g.strides, options).zero_();
}

namespace {
Tensor view_of(const Tensor& base_grad, const Geometry& base, const Geometry& view) {
  return base_grad.as_strided(view.sizes, view.strides,
                              base_grad.storage_offset() + view.offset - base.offset);
}
}  // namespace

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_(base), view_(view), fn_(std::move(fn)) {
  add_input_metadata(base);
  set_next_edges(fn_->num_outputs());
  set_next_edge(0, gradient_edge(base));
  for (uint32_t i = 1; i < fn_->num_outputs(); ++i) set_next_edge(i, fn_->next_edge(i));
}

void CopySlices::apply(ArrayRef<Tensor> grads, variable_list& out) {
  EMBER_CHECK(fn_,
              "CopySlices: trying to backward through the graph a second time. Hint: pass "
              "retain_graph=true to the first backward");
  const Tensor& grad = grads[0];
  if (!grad.defined()) return;
  Tensor result = zeros_with_geometry(base_, grad.options());
  result.copy_(grad);
  Tensor grad_slice = view_of(result, base_, view_);
  variable_list fn_out(fn_->num_outputs());
  Tensor slice_copy = grad_slice.clone();
  {
    CurrentNodeGuard running(fn_.get());  // fn's saved outputs belong to fn
    fn_->apply(ArrayRef<Tensor>(&slice_copy, 1), fn_out);
  }
  // The old values under the view were overwritten: their gradient is what fn says (zero for a
  // plain copy_), not the incoming one.
  if (fn_out[0].defined())
    grad_slice.copy_(fn_out[0]);
  else
    grad_slice.zero_();
  out[0] = std::move(result);
  for (size_t i = 1; i < fn_out.size(); ++i) out[i] = std::move(fn_out[i]);
}

void CopySlices::release_variables() {
  if (fn_) fn_->release_variables();
}

AsStridedViewBackward::AsStridedViewBackward(const Tensor& base, const Tensor& view)
    : base_(base), view_(view), dtype_(base.dtype()) {
  add_input_metadata(view);
  add_next_edge(gradient_edge(base));
}

void AsStridedViewBackward::apply(ArrayRef<Tensor> grads, variable_list& out) {
  if (!grads[0].defined()) return;
  Tensor result = zeros_with_geometry(base_, grads[0].options().dtype(dtype_));
  view_of(result, base_, view_).copy_(grads[0]);
  out[0] = std::move(result);
}

}  // namespace ember::autograd
