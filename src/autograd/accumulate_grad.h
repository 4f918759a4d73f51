// AccumulateGrad: the node at the end of every path to a leaf. It runs the leaf's hooks, then adds
// the incoming gradient into leaf.grad() (stealing the buffer when nobody else holds it, laid out
// like the leaf), then runs the post-accumulate hooks.
#pragma once

#include "ember/autograd/node.h"

namespace ember::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  void apply(ArrayRef<Tensor> grads, variable_list& out) override;
  const Tensor& variable() const { return leaf_; }

 private:
  Tensor leaf_;  // strong: the leaf's meta only holds a weak reference back, so no cycle
};

}  // namespace ember::autograd
