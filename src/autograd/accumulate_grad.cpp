#include "src/autograd/accumulate_grad.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/node_internal.h"

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {
  // Runs as soon as it is ready, so a leaf's gradient is complete (and its hooks fire) early.
  NodeAccess::set_sequence_nr(*this, std::numeric_limits<uint64_t>::max());
  add_input_metadata(leaf_);
}

namespace {
// The new gradient in the leaf's layout: reuse `g` when its strides already match and nobody
// else holds it; otherwise copy into a tensor laid out like the leaf.
Tensor in_leaf_layout(const Tensor& leaf, Tensor g, bool may_steal) {
  bool same_layout = g.strides() == leaf.strides() || (g.is_contiguous() && leaf.is_contiguous());
  if (may_steal && same_layout && g.use_count() == 1 && !g.is_view()) return g;
  Tensor out = leaf.is_contiguous() ? empty(leaf.sizes(), g.options())
                                    : empty_strided(leaf.sizes(), leaf.strides(), g.options());
  out.copy_(g);
  return out;
}
}  // namespace

void AccumulateGrad::apply(ArrayRef<Tensor> grads, variable_list& /*out*/) {
  Tensor grad = grads[0];
  AutogradMeta& meta = materialize_autograd_meta(leaf_);
  if (meta.hooks_) {
    for (auto& [id, hook] : meta.hooks_->grad_hooks) {
      Tensor replaced = hook(grad);
      if (replaced.defined()) grad = std::move(replaced);
    }
  }
  if (!grad.defined()) return;
  if (!meta.requires_grad_) return;  // requires_grad was switched off after the graph was built
  Tensor& slot = meta.grad_;
  if (!GradMode::is_enabled()) {
    if (!slot.defined()) {
      slot = in_leaf_layout(leaf_, grad.detach(), grad.use_count() <= 2);
    } else {
      slot.add_(grad);
    }
  } else {
    // create_graph: the accumulated gradient stays differentiable.
    slot = slot.defined() ? slot + grad : in_leaf_layout(leaf_, grad, false);
  }
  if (meta.hooks_) {
    for (auto& [id, hook] : meta.hooks_->post_accumulate) hook(leaf_);
  }
}

}  // namespace ember::autograd
