// The nodes that give views LibTorch's in-place semantics:
//  - CopySlices: the grad_fn a base gets when one of its views is modified in place. It routes the
//    view's part of the gradient through the in-place op's node and the rest straight through.
//  - AsStridedBackward0: the grad_fn a view gets after its memory was modified in place (through
//    itself or its base): it scatters the view's gradient into a gradient of the base.
#pragma once

#include "ember/autograd/node.h"

namespace ember::autograd {

/// Sizes, strides and storage offset of a tensor.
struct Geometry {
  Geometry() = default;
  explicit Geometry(const Tensor& t)
      : sizes(t.sizes()), strides(t.strides()), offset(t.storage_offset()) {}
  DimVector sizes;
  DimVector strides;
  int64_t offset = 0;
};

class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return "CopySlices"; }
  void apply(ArrayRef<Tensor> grads, variable_list& out) override;
  void release_variables() override;

 private:
  Geometry base_, view_;
  std::shared_ptr<Node> fn_;
};

class AsStridedViewBackward final : public Node {
 public:
  AsStridedViewBackward(const Tensor& base, const Tensor& view);
  std::string name() const override { return "AsStridedBackward0"; }
  void apply(ArrayRef<Tensor> grads, variable_list& out) override;

 private:
  Geometry base_, view_;
  ScalarType dtype_;
};

/// A zero tensor laid out like `g` (same strides), so a view geometry maps the same elements.
Tensor zeros_with_geometry(const Geometry& g, const TensorOptions& options);

}  // namespace ember::autograd
