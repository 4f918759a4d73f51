// Backward formulas of the view ops. Views that drop elements (select, slice, diagonal) scatter
// the gradient into zeros through the same view and copy_, so create_graph stays differentiable.
#include "src/autograd/derivatives/view.h"

#include <numeric>

#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/shape.h"
#include "src/autograd/grad_utils.h"
#include "src/autograd/view_nodes.h"

namespace ember::autograd::derivatives {

namespace {
template <class ViewOf>
Tensor scatter_into_zeros(const Tensor& grad, IntArrayRef sizes, ViewOf view_of) {
  Tensor z = zeros(sizes, grad.options());
  view_of(z).copy_(grad);
  return z;
}
}  // namespace

void reshape_alias(const char* node_name, const Tensor& result, const Tensor& self) {
  record(node_name, result, edges_of(self),
         [sizes = DimVector(self.sizes())](const Tensor& grad) { return grad.reshape(sizes); });
}

void permute(const Tensor& result, const Tensor& self, IntArrayRef dims) {
  DimVector inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = dims[i] < 0 ? dims[i] + self.dim() : dims[i];
    inverse[static_cast<size_t>(d)] = static_cast<int64_t>(i);
  }
  record("PermuteBackward0", result, edges_of(self),
         [inverse](const Tensor& grad) { return grad.permute(inverse); });
}

void transpose(const Tensor& result, const Tensor& self, int64_t dim0, int64_t dim1) {
  record("TransposeBackward0", result, edges_of(self),
         [dim0, dim1](const Tensor& grad) { return grad.transpose(dim0, dim1); });
}

void expand(const Tensor& result, const Tensor& self) {
  record("ExpandBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes())](const Tensor& grad) { return sum_to(grad, sizes); });
}

void select(const Tensor& result, const Tensor& self, int64_t dim, int64_t index) {
  record("SelectBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), dim, index](const Tensor& grad) {
           return scatter_into_zeros(grad, sizes,
                                     [&](const Tensor& z) { return z.select(dim, index); });
         });
}

void slice(const Tensor& result, const Tensor& self, int64_t dim, int64_t start, int64_t end,
           int64_t step) {
  record("SliceBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), dim, start, end, step](const Tensor& grad) {
           return scatter_into_zeros(
               grad, sizes, [&](const Tensor& z) { return z.slice(dim, start, end, step); });
         });
}

void diagonal(const Tensor& result, const Tensor& self, int64_t offset, int64_t dim1,
              int64_t dim2) {
  record("DiagonalBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), offset, dim1, dim2](const Tensor& grad) {
           return scatter_into_zeros(
               grad, sizes, [&](const Tensor& z) { return z.diagonal(offset, dim1, dim2); });
         });
}

void strided_view(const char* node_name, const Tensor& result, const Tensor& self) {
  // Number every storage element, read the numbers through the view, and add each gradient
  // element at its number: correct even when the view repeats elements (unfold with overlap).
  const int64_t storage_numel =
      static_cast<int64_t>(self.unsafeGetTensorImpl()->storage()->nbytes()) / self.element_size();
  record(node_name, result, edges_of(self),
         [in = Geometry(self), out = Geometry(result), storage_numel](const Tensor& grad) {
           Tensor positions = arange(storage_numel, TensorOptions().dtype(kLong))
                                  .as_strided(out.sizes, out.strides, out.offset)
                                  .reshape({-1});
           Tensor storage_grad = zeros({storage_numel}, grad.options());
           storage_grad.index_add_(0, positions, grad.reshape({-1}));
           return storage_grad.as_strided(in.sizes, in.strides, in.offset);
         });
}

void restride_(const Tensor& self, const Tensor& view) {
  if (const auto& fn = view.grad_fn()) set_history(self, fn, view.output_nr());
}

}  // namespace ember::autograd::derivatives
