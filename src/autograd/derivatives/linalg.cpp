// Backward formulas of the matrix products. Transposes are views (the GEMM reads them through
// their strides), so mm's backward is two GEMMs and no copies. Each operand is saved only when
// the other one's gradient needs it.
#include "src/autograd/derivatives/linalg.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"

namespace ember::autograd::derivatives {

namespace {
SavedVariable save_if(bool needed, const Tensor& t) { return needed ? save(t) : SavedVariable(); }
Tensor scaled(const Tensor& t, const Scalar& s) { return s.toDouble() == 1 ? t : t * s; }
// Whether a matrix is laid out column-major (a transpose of a contiguous one: F::linear's
// weight.t()). PyTorch's test, strides only.
bool column_major(const Tensor& t) {
  return t.dim() == 2 && t.stride(0) == 1 && t.stride(1) == t.size(0);
}
// The gradients of a product A·B, each in its operand's own layout, as PyTorch's mm_mat1/mat2
// backward: for a column-major operand the product is taken transposed (gᴬ = (B·gᵀ)ᵀ,
// gᴮ = (gᵀ·A)ᵀ), so once the transpose's own backward has run, F::linear's weight gets a
// gradient contiguous in the weight's layout, which AccumulateGrad keeps instead of copying.
Tensor mat1_grad(const Tensor& grad, const Tensor& mat2, bool mat1_column_major) {
  return mat1_column_major ? mat2.mm(grad.t()).t() : grad.mm(mat2.t());
}
Tensor mat2_grad(const Tensor& grad, const Tensor& mat1, bool mat2_column_major) {
  return mat2_column_major ? grad.t().mm(mat1).t() : mat1.t().mm(grad);
}
// `t` in `dtype` (outer promotes mixed operands; the products need one dtype).
Tensor as_dtype(const Tensor& t, ScalarType dtype) { return t.dtype() == dtype ? t : t.to(dtype); }
}  // namespace

void mm(const Tensor& result, const Tensor& self, const Tensor& mat2) {
  record("MmBackward0", result, edges_of(self, mat2),
         [a = save_if(requires_grad_arg(mat2), self), b = save_if(requires_grad_arg(self), mat2),
          a_cm = column_major(self),
          b_cm = column_major(mat2)](const Tensor& grad, NeedsGrad needs) -> Grads {
           return {needs[0] ? mat1_grad(grad, b.unpack(), a_cm) : Tensor(),
                   needs[1] ? mat2_grad(grad, a.unpack(), b_cm) : Tensor()};
         });
}

void bmm(const Tensor& result, const Tensor& self, const Tensor& mat2) {
  record("BmmBackward0", result, edges_of(self, mat2),
         [a = save_if(requires_grad_arg(mat2), self), b = save_if(requires_grad_arg(self), mat2)](
             const Tensor& grad, NeedsGrad needs) -> Grads {
           return {needs[0] ? grad.bmm(b.unpack().mT()) : Tensor(),
                   needs[1] ? a.unpack().mT().bmm(grad) : Tensor()};
         });
}

void addmm(const Tensor& result, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
           const Scalar& beta, const Scalar& alpha) {
  // self's gradient comes back in the product's shape; the engine sums it to self's (a bias).
  record("AddmmBackward0", result, edges_of(self, mat1, mat2),
         [a = save_if(requires_grad_arg(mat2), mat1), b = save_if(requires_grad_arg(mat1), mat2),
          a_cm = column_major(mat1), b_cm = column_major(mat2), beta,
          alpha](const Tensor& grad, NeedsGrad needs) -> Grads {
           return {needs[0] ? scaled(grad, beta) : Tensor(),
                   needs[1] ? scaled(mat1_grad(grad, b.unpack(), a_cm), alpha) : Tensor(),
                   needs[2] ? scaled(mat2_grad(grad, a.unpack(), b_cm), alpha) : Tensor()};
         });
}

void baddbmm(const Tensor& result, const Tensor& self, const Tensor& batch1, const Tensor& batch2,
             const Scalar& beta, const Scalar& alpha) {
  record("BaddbmmBackward0", result, edges_of(self, batch1, batch2),
         [a = save_if(requires_grad_arg(batch2), batch1),
          b = save_if(requires_grad_arg(batch1), batch2), beta,
          alpha](const Tensor& grad, NeedsGrad needs) -> Grads {
           return {needs[0] ? scaled(grad, beta) : Tensor(),
                   needs[1] ? scaled(grad.bmm(b.unpack().mT()), alpha) : Tensor(),
                   needs[2] ? scaled(a.unpack().mT().bmm(grad), alpha) : Tensor()};
         });
}

void dot(const Tensor& result, const Tensor& self, const Tensor& other) {
  record(
      "DotBackward0", result, edges_of(self, other),
      [a = save_if(requires_grad_arg(other), self), b = save_if(requires_grad_arg(self), other)](
          const Tensor& grad, NeedsGrad needs) -> Grads {
        return {needs[0] ? grad * b.unpack() : Tensor(), needs[1] ? grad * a.unpack() : Tensor()};
      });
}

void mv(const Tensor& result, const Tensor& self, const Tensor& vec) {
  record("MvBackward0", result, edges_of(self, vec),
         [a = save_if(requires_grad_arg(vec), self), v = save_if(requires_grad_arg(self), vec)](
             const Tensor& grad, NeedsGrad needs) -> Grads {
           return {needs[0] ? grad.outer(v.unpack()) : Tensor(),
                   needs[1] ? a.unpack().t().mv(grad) : Tensor()};
         });
}

void outer(const Tensor& result, const Tensor& self, const Tensor& vec2) {
  record("OuterBackward0", result, edges_of(self, vec2),
         [a = save_if(requires_grad_arg(vec2), self), b = save_if(requires_grad_arg(self), vec2)](
             const Tensor& grad, NeedsGrad needs) -> Grads {
           return {needs[0] ? grad.mv(as_dtype(b.unpack(), grad.dtype())) : Tensor(),
                   needs[1] ? grad.t().mv(as_dtype(a.unpack(), grad.dtype())) : Tensor()};
         });
}

void matmul(const Tensor& result, const Tensor& self, const Tensor& other) {
  // A 1-D operand is a row (left) or a column (right) that the result drops: put the dims back,
  // take the batched products, and drop them again. Broadcast batch dims come back full size and
  // the engine sums them to each operand's shape.
  record("MatmulBackward0", result, edges_of(self, other),
         [a = save_if(requires_grad_arg(other), self), b = save_if(requires_grad_arg(self), other),
          d1 = self.dim(), d2 = other.dim()](const Tensor& grad, NeedsGrad needs) -> Grads {
           Tensor g = d1 == 1 ? grad.unsqueeze(-2) : grad;
           if (d2 == 1) g = g.unsqueeze(-1);
           Tensor ga, gb;
           if (needs[0]) {
             Tensor B = d2 == 1 ? b.unpack().unsqueeze(-1) : b.unpack();
             ga = g.matmul(B.mT());
             if (d1 == 1) ga = ga.squeeze(-2);
           }
           if (needs[1]) {
             Tensor A = d1 == 1 ? a.unpack().unsqueeze(-2) : a.unpack();
             if (d2 <= 2 && A.dim() >= 3) {
               // other is shared by the whole batch: fold the batch into the rows, so its
               // gradient is one (k x B·m)·(B·m x n) GEMM instead of B products summed after.
               const int64_t k = A.size(-1), n = g.size(-1);
               gb = A.reshape({-1, k}).t().mm(g.reshape({-1, n}));
             } else {
               gb = A.mT().matmul(g);
             }
             if (d2 == 1) gb = gb.squeeze(-1);
           }
           return {ga, gb};
         });
}

}  // namespace ember::autograd::derivatives
