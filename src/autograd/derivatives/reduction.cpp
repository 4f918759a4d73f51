#include "src/autograd/derivatives/reduction.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/shape.h"

namespace ember::autograd::derivatives {

Tensor expand_reduced(const Tensor& grad, IntArrayRef sizes, uint64_t mask, bool keepdim) {
  Tensor g = grad;
  if (!keepdim)
    for (size_t d = 0; d < sizes.size(); ++d)
      if (mask >> d & 1) g = g.unsqueeze(static_cast<int64_t>(d));
  return g.expand(sizes);
}

void sum(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim) {
  record("SumBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), mask, keepdim](const Tensor& grad) {
           return expand_reduced(grad, sizes, mask, keepdim);
         });
}

void mean(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim) {
  int64_t count = 1;
  for (size_t d = 0; d < static_cast<size_t>(self.dim()); ++d)
    if (mask >> d & 1) count *= self.size(static_cast<int64_t>(d));
  record("MeanBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), mask, keepdim, count](const Tensor& grad) {
           return expand_reduced(grad, sizes, mask, keepdim) / static_cast<double>(count);
         });
}

}  // namespace ember::autograd::derivatives
