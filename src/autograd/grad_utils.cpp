#include "src/autograd/grad_utils.h"

#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"

namespace ember::autograd {

bool is_expandable_to(IntArrayRef shape, IntArrayRef target) {
  if (shape.size() > target.size()) return false;
  size_t lead = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != target[lead + i] && shape[i] != 1) return false;
  return true;
}

Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  if (g.sizes() == shape) return g;
  size_t lead = static_cast<size_t>(g.dim()) - shape.size();
  DimVector dims;
  for (size_t i = 0; i < lead; ++i) dims.push_back(static_cast<int64_t>(i));
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g.size(static_cast<int64_t>(lead + i)) != 1)
      dims.push_back(static_cast<int64_t>(lead + i));
  Tensor r = dims.empty() ? g : g.sum(dims, /*keepdim=*/true);
  return r.dim() == static_cast<int64_t>(shape.size()) ? r : r.view(shape);
}

}  // namespace ember::autograd
