// Backward formulas of sum, mean, prod and the max/min family, in derivatives.yaml's terms. Each
// is written with differentiable ops, so create_graph gives higher derivatives.
#include "src/autograd/derivatives/reduction.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"

namespace ember::autograd::derivatives {

Tensor unsqueeze_reduced(const Tensor& t, int64_t ndim, uint64_t mask, bool keepdim) {
  Tensor g = t;
  if (!keepdim)
    for (int64_t d = 0; d < ndim; ++d)
      if (mask >> d & 1) g = g.unsqueeze(d);
  return g;
}

Tensor expand_reduced(const Tensor& grad, IntArrayRef sizes, uint64_t mask, bool keepdim) {
  return unsqueeze_reduced(grad, static_cast<int64_t>(sizes.size()), mask, keepdim).expand(sizes);
}

DimVector dims_of(uint64_t mask, int64_t ndim) {
  DimVector dims;
  for (int64_t d = 0; d < ndim; ++d)
    if (mask >> d & 1) dims.push_back(d);
  return dims;
}

Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                IntArrayRef sizes, bool keepdim) {
  if (sizes.empty()) return grad;  // a 0-dim input selects itself
  Tensor g = keepdim ? grad : grad.unsqueeze(dim);
  Tensor idx = keepdim ? indices : indices.unsqueeze(dim);
  Tensor grad_self = zeros(sizes, g.options());
  grad_self.scatter_(dim, idx, g);  // in place: the out-of-place form would clone the zeros
  return grad_self;
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

namespace {
// prod_{i != k} x_i along dim as (exclusive prefix product) * (exclusive suffix product): exact
// with zeros, and a polynomial, so its own derivative is right too (PyTorch's
// prod_safe_zeros_backward).
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& input, int64_t dim) {
  if (input.numel() == 0) return grad.expand(input.sizes());
  const int64_t n = input.size(dim);
  DimVector ones_size(input.sizes());
  ones_size[static_cast<size_t>(dim)] = 1;
  Tensor one = ones(ones_size, input.options());
  Tensor prefix = cat({one, input.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  Tensor suffix = cat({one, input.narrow(dim, 1, n - 1).flip({dim})}, dim).cumprod(dim).flip({dim});
  return grad * (prefix * suffix);
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                     std::optional<int64_t> dim, bool keepdim) {
  if (self.dim() == 0) return grad;
  Tensor g = grad, r = result;
  if (dim && !keepdim) {
    g = g.unsqueeze(*dim);
    r = r.unsqueeze(*dim);
  }
  // Without zeros, d/dx_k prod(x) = prod(x) / x_k. (One host read decides; zeros are rare.)
  if (!(self == 0).any().item<bool>()) return g * (r / self);
  if (dim) return prod_safe_zeros_backward(g, self, *dim);
  return prod_safe_zeros_backward(g, self.reshape({-1}), 0).reshape(self.sizes());
}
}  // namespace

void prod(const Tensor& result, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  record(dim ? "ProdBackward1" : "ProdBackward0", result, edges_of(self),
         [self_ = save(self), result_ = save_output(result), dim, keepdim](const Tensor& grad) {
           return prod_backward(grad, self_.unpack(), result_.unpack(), dim, keepdim);
         });
}

void evenly_distribute(const char* node_name, const Tensor& result, const Tensor& self,
                       uint64_t mask, bool keepdim) {
  record(node_name, result, edges_of(self),
         [self_ = save(self), result_ = save_output(result), mask, keepdim](const Tensor& grad) {
           Tensor x = self_.unpack();
           const int64_t ndim = x.dim();
           Tensor r = unsqueeze_reduced(result_.unpack(), ndim, mask, keepdim);
           Tensor hit = (x == r) | (x.isnan() & r.isnan());
           Tensor count = ndim == 0 ? hit : hit.sum(dims_of(mask, ndim), /*keepdim=*/true);
           return unsqueeze_reduced(grad, ndim, mask, keepdim) / count * hit;
         });
}

void value_selecting(const char* node_name, const Tensor& values, const Tensor& indices,
                     const Tensor& self, int64_t dim, bool keepdim) {
  record(node_name, values, edges_of(self),
         [sizes = DimVector(self.sizes()), indices_ = save(indices), dim,
          keepdim](const Tensor& grad) {
           return value_selecting_backward(grad, dim, indices_.unpack(), sizes, keepdim);
         });
}

}  // namespace ember::autograd::derivatives
