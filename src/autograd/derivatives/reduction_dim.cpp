// Backward formulas of the ops along one dim: softmax, log_softmax, cumsum, cumprod, sort/topk
// (PyTorch's _softmax_backward_data, cumsum's reversed cumsum, cumprod_backward,
// value_selecting_reduction_backward).
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/reduction.h"

namespace ember::autograd::derivatives {

namespace {
// sum_{j >= k} w_j along dim.
Tensor reversed_cumsum(const Tensor& w, int64_t dim) {
  return w.flip({dim}).cumsum(dim).flip({dim});
}

// out_j = prod_{i <= j} x_i, so d/dx_k sum_j g_j out_j = sum_{j >= k} g_j prod_{i <= j, i != k}
// x_i.
//  - x_k != 0: that is reversed_cumsum(g * out)_k / x_k, an identity wherever x_k != 0, so its
//    derivative is right too (out is zero past the first zero, as it should be).
//  - x_k == 0 at the first zero z of its slice: sum_{j >= z} g_j cumprod(x with x_z = 1)_j.
//  - a later zero: every product holds the first zero, so 0.
// O(n), exact for the first derivative; the second is exact while a slice holds at most one
// zero (PyTorch's O(n^2) double-backward path covers more zeros).
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (self.dim() == 0 || self.numel() <= 1 || self.size(dim) == 1) return grad;
  Tensor w = grad * result;
  Tensor is_zero = self == 0;
  if (!is_zero.any().item<bool>()) return reversed_cumsum(w, dim) / self;
  Tensor zeros_so_far = is_zero.cumsum(dim);  // int64
  Tensor first_zero = is_zero & (zeros_so_far == 1);
  Tensor at_nonzero = reversed_cumsum(w, dim) / where(is_zero, 1, self);
  Tensor skip_first = where(first_zero, 1, self).cumprod(dim);
  Tensor at_first_zero = where(zeros_so_far >= 1, grad * skip_first, 0).sum({dim}, true);
  return where(is_zero, where(first_zero, at_first_zero, 0), at_nonzero);
}
}  // namespace

void softmax(const Tensor& result, const Tensor& self, int64_t dim) {
  record("SoftmaxBackward0", result, edges_of(self),
         [result_ = save_output(result), dim](const Tensor& grad) {
           // Fused where it can be; composed (so differentiable) under create_graph.
           Tensor out = result_.unpack();
           return _softmax_backward_data(grad, out, dim, out.scalar_type());
         });
}

void log_softmax(const Tensor& result, const Tensor& self, int64_t dim) {
  record("LogSoftmaxBackward0", result, edges_of(self),
         [result_ = save_output(result), dim](const Tensor& grad) {
           Tensor out = result_.unpack();
           return _log_softmax_backward_data(grad, out, dim, out.scalar_type());
         });
}

void cumsum(const Tensor& result, const Tensor& self, int64_t dim) {
  record("CumsumBackward0", result, edges_of(self),
         [dim](const Tensor& grad) { return grad.dim() == 0 ? grad : reversed_cumsum(grad, dim); });
}

void cumprod(const Tensor& result, const Tensor& self, int64_t dim) {
  record("CumprodBackward0", result, edges_of(self),
         [self_ = save(self), result_ = save_output(result), dim](const Tensor& grad) {
           return cumprod_backward(grad, self_.unpack(), result_.unpack(), dim);
         });
}

void sort(const char* node_name, const Tensor& values, const Tensor& indices, const Tensor& self,
          int64_t dim) {
  record(node_name, values, edges_of(self),
         [sizes = DimVector(self.sizes()), indices_ = save(indices), dim](const Tensor& grad) {
           return value_selecting_backward(grad, dim, indices_.unpack(), sizes, /*keepdim=*/true);
         });
}

}  // namespace ember::autograd::derivatives
