// Per-tensor autograd state: requires_grad, the accumulated gradient, the grad_fn and output
// number, the leaf's gradient accumulator, hooks, and for views the base they alias.
#pragma once

#include <memory>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/core/tensor.h"

namespace ember::autograd {

/// What a differentiable view remembers: the tensor it views, and the storage version at which its
/// grad_fn was last set. When the version moves on (an in-place op on the view or its base), the
/// grad_fn is rebuilt as an as_strided backward of the base's current history.
struct ViewInfo {
  Tensor base;
  uint32_t attr_version = 0;
};

/// Hooks of a leaf tensor and the retained gradient of a non-leaf one.
struct TensorHooks {
  std::vector<std::pair<unsigned, GradHook>> grad_hooks;  // leaves only; non-leaves hook the node
  std::vector<std::pair<unsigned, std::function<void(const Tensor&)>>> post_accumulate;
  /// retain_grad() on a non-leaf: the gradient the hook stores (shared with that hook).
  std::shared_ptr<Tensor> retained_grad;
};

struct AutogradMeta final : AutogradMetaInterface {
  explicit AutogradMeta(TensorImpl* owner) : owner_(owner) {}
  bool requires_grad() const override;

  TensorImpl* owner_;  // the impl that owns this meta (outlives it)
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;  // leaves: shared by every op that uses the leaf
  std::unique_ptr<ViewInfo> view_;
  std::unique_ptr<TensorHooks> hooks_;
  /// Set while this tensor is a module's slot standing in for another tensor (a parametrized
  /// value, a functional_call argument; see tensor_binding.h): what backward formulas save instead
  /// of this tensor, whose contents change when the slot is rebound or restored.
  Tensor bound_to_;
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;
};

/// The meta of `t`, or null when it never took part in autograd.
inline AutogradMeta* get_autograd_meta(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta());
}
/// The meta of `t`, created on first use.
AutogradMeta& materialize_autograd_meta(const Tensor& t);

/// The grad_fn of `t`, rebuilt first when `t` is a view whose data changed in place.
const std::shared_ptr<Node>& grad_fn_of(const Tensor& t);
/// Where the gradient of `t` goes: (grad_fn, output_nr), the leaf's accumulator, or invalid.
Edge gradient_edge(const Tensor& t);
/// The AccumulateGrad node of a leaf that requires grad (created once, then shared).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);
/// Makes `fn` the grad_fn of `t` as output `output_nr`.
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr);

}  // namespace ember::autograd
