// Rebinding a module's tensor slot. A layer reads its weight through a Tensor member that shares
// one TensorImpl with the module's registry entry (`weight = register_parameter(...)`), and C++
// cannot re-point that member from outside the way Python's setattr does. Parametrizations,
// pruning and functional_call therefore change what the shared impl holds: its memory becomes the
// value's, and its autograd history the value's (gradients flowing into the slot reach the
// value's graph, a leaf's accumulator included). Backward formulas that save the slot save the
// value it stands for (AutogradMeta::bound_to_), so a graph stays right after the slot is rebound
// again or restored.
#pragma once

#include <memory>

#include "ember/core/tensor.h"

namespace ember::autograd {

struct AutogradMeta;

/// Makes `slot` read as `value`: same memory and geometry, `value`'s gradient edge, not a leaf
/// (unless `value` needs no gradient, when it is a plain tensor). `slot` must not be a view.
EMBER_API void bind_slot(const Tensor& slot, const Tensor& value);

/// Makes `slot` an ordinary leaf again holding `data`'s memory (no history, no gradient), with
/// `requires_grad`: how a parametrized or pruned tensor becomes a parameter again.
EMBER_API void make_slot_leaf(const Tensor& slot, const Tensor& data, bool requires_grad);

/// Everything a slot holds (memory, geometry, autograd state), taken out so the slot can be
/// rebound and later put back exactly as it was: functional_call's swap.
class EMBER_API SlotSnapshot {
 public:
  explicit SlotSnapshot(const Tensor& slot);
  SlotSnapshot(SlotSnapshot&&) noexcept;
  SlotSnapshot& operator=(SlotSnapshot&&) noexcept;
  SlotSnapshot(const SlotSnapshot&) = delete;
  SlotSnapshot& operator=(const SlotSnapshot&) = delete;
  ~SlotSnapshot();
  /// Puts the slot back as it was when the snapshot was taken.
  void restore();

 private:
  Tensor slot_;
  Tensor data_;                         // a plain alias of the slot's former memory and geometry
  std::unique_ptr<AutogradMeta> meta_;  // null when the slot had no autograd state
};

}  // namespace ember::autograd
