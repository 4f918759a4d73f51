// Backward formulas of ember::linalg's inverse, solve, cholesky, det, slogdet and matrix_exp
// (real case of PyTorch's FunctionsManual.cpp). Triangular solves are done by linalg::solve, the
// one differentiable solver Ember has.
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/autograd/derivatives/linalg_common.h"

namespace ember::autograd::derivatives {

void linalg_inv(const Tensor& result, const Tensor& A) {
  // d(A⁻¹) = -A⁻¹ dA A⁻¹, so gA = -A⁻ᵀ G A⁻ᵀ.
  record("LinalgInvExBackward0", result, edges_of(A),
         [inv = save_output(result)](const Tensor& grad) {
           const Tensor inv_t = inv.unpack().mT();
           return -inv_t.matmul(grad.matmul(inv_t));
         });
}

void linalg_solve(const Tensor& X, const Tensor& A, const Tensor& B) {
  // X = A⁻¹B: gB = A⁻ᵀ gX, gA = -gB Xᵀ (both in the broadcast batch shape; the engine sums).
  record("LinalgSolveExBackward0", X, edges_of(A, B),
         [a = save(A), x = requires_grad_arg(A) ? save_output(X) : SavedVariable()](
             const Tensor& grad, NeedsGrad needs) -> Grads {
           const Tensor gB = linalg::solve(a.unpack().mT(), grad);
           return {needs[0] ? -gB.matmul(x.unpack().mT()) : Tensor(), needs[1] ? gB : Tensor()};
         });
}

void linalg_cholesky(const Tensor& L, const Tensor& A, bool upper) {
  // Murray (2016), arXiv:1602.07527, as PyTorch's cholesky_backward:
  //   gA = L⁻ᵀ Φ(Lᵀ gL) L⁻¹, Φ(X) = ½(tril(X) + tril(X, -1)ᵀ)
  // (symmetric: A is read through its lower triangle, so only symmetric changes of A count).
  record("LinalgCholeskyExBackward0", L, edges_of(A),
         [l = save_output(L), upper](const Tensor& grad) {
           const Tensor low = upper ? l.unpack().mT() : l.unpack();
           const Tensor g_low = upper ? grad.mT() : grad;
           Tensor gA = tril_of(low.mT().matmul(g_low));
           gA = (gA + tril_of(gA, -1).mT()) * 0.5;
           const Tensor low_t = low.mT();
           gA = linalg::solve(low_t, gA);              // L⁻ᵀ Φ
           return linalg::solve(low_t, gA.mT()).mT();  // (L⁻ᵀ Φ) L⁻¹
         });
}

namespace {
// grad·adj(A)ᵀ for (nearly) singular A, from A = U S Vh: adj(A)ᵀ = det(U)det(Vh)·U diag(Π_{j≠i}
// S_j) Vh, which stays finite where det(A)·A⁻ᵀ is 0·∞ (PyTorch's det backward does the same).
Tensor det_grad_singular(const Tensor& A, const Tensor& grad) {
  auto [U, S, Vh] = linalg::svd(A);
  const Tensor alpha = linalg::det(U) * linalg::det(Vh) * grad;
  const Tensor I = eye(S.size(-1), S.options());
  // Row i of `others` is S with S_i replaced by 1: its product is Π_{j≠i} S_j.
  const Tensor others = S.unsqueeze(-2) * (1 - I) + I;
  const Tensor D = alpha.unsqueeze(-1) * others.prod(-1);
  return (U * D.unsqueeze(-2)).matmul(Vh);
}
}  // namespace

void linalg_det(const Tensor& result, const Tensor& A) {
  // gA = grad·det(A)·A⁻ᵀ (a solve with Aᵀ). Matrices with |det| < 100·eps take the SVD formula,
  // which gives the adjugate (not 0·∞) on singular input, at the price of an SVD.
  record("LinalgDetBackward0", result, edges_of(A),
         [a = save(A), det = save_output(result)](const Tensor& grad) {
           const Tensor A = a.unpack(), d = det.unpack();
           if (A.numel() == 0) return zeros_like(A);
           const double eps = A.dtype() == kDouble ? std::numeric_limits<double>::epsilon()
                                                   : std::numeric_limits<float>::epsilon();
           const Tensor singular = d.detach().abs() < 100 * eps;
           const Tensor I = eye(A.size(-1), A.options());
           const Tensor rhs = (grad * d).unsqueeze(-1).unsqueeze(-1) * I;
           if (!singular.any().item<bool>()) return linalg::solve(A.mT(), rhs);
           const Tensor by_svd = det_grad_singular(A, grad);
           if (singular.all().item<bool>()) return by_svd;
           // Mixed batch: the singular matrices are swapped for I before the solve (whose result
           // for them is discarded), so that the solver does not fail on them.
           const Tensor mask = singular.unsqueeze(-1).unsqueeze(-1);
           return where(mask, by_svd, linalg::solve(where(mask, I, A).mT(), rhs));
         });
}

void linalg_slogdet(const Tensor& sign, const Tensor& logabsdet, const Tensor& A) {
  // d log|det A| = tr(A⁻¹ dA), so gA = g·A⁻ᵀ; the sign is locally constant (no gradient).
  record("LinalgSlogdetBackward0", {sign, logabsdet}, edges_of(A),
         [a = save(A)](OutputGradList grads, NeedsGrad) -> Grads {
           const Tensor& g = grads[1];
           if (!g.defined()) return Tensor();
           const Tensor A = a.unpack();
           if (A.numel() == 0) return zeros_like(A);
           return linalg::solve(A.mT(),
                                g.unsqueeze(-1).unsqueeze(-1) * eye(A.size(-1), A.options()));
         });
}

void linalg_matrix_exp(const Tensor& result, const Tensor& A) {
  // Mathias (1996): the adjoint of d exp at A applied to G is the top-right block of
  // exp([[Aᵀ, G], [0, Aᵀ]]).
  record("LinalgMatrixExpBackward0", result, edges_of(A), [a = save(A)](const Tensor& grad) {
    const Tensor At = a.unpack().mT();
    const int64_t n = At.size(-1);
    DimVector sizes(grad.sizes());
    sizes[sizes.size() - 1] *= 2;
    sizes[sizes.size() - 2] *= 2;
    const Tensor meta = zeros(sizes, grad.options());
    meta.narrow(-2, 0, n).narrow(-1, 0, n).copy_(At);
    meta.narrow(-2, n, n).narrow(-1, n, n).copy_(At);
    meta.narrow(-2, 0, n).narrow(-1, n, n).copy_(grad);
    return linalg::matrix_exp(meta).narrow(-2, 0, n).narrow(-1, n, n);
  });
}

}  // namespace ember::autograd::derivatives
