#include "src/autograd/derivatives/copy.h"

#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"

namespace ember::autograd::derivatives {

void copy_(const Tensor& self, const Tensor& src, Edges edges) {
  record_inplace(
      "CopyBackwards", self, std::move(edges),
      [src_device = src.device()](const Tensor& grad, NeedsGrad needs) -> Grads {
        return {needs[0] ? zeros_like(grad) : Tensor(), needs[1] ? grad.to(src_device) : Tensor()};
      });
}

void clone(const Tensor& result, const Tensor& self) {
  record("CloneBackward0", result, edges_of(self), [](const Tensor& grad) { return grad; });
}

void fill_(const Tensor& self, const Tensor& value, Edges edges) {
  bool has_value = value.defined();
  record_inplace("FillBackward0", self, std::move(edges),
                 [has_value](const Tensor& grad, NeedsGrad needs) -> Grads {
                   Tensor gs = needs[0] ? zeros_like(grad) : Tensor();
                   if (!has_value) return gs;
                   return {gs, needs[1] ? grad.sum() : Tensor()};
                 });
}

}  // namespace ember::autograd::derivatives
