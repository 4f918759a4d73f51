// Backward formulas of ember::linalg's decompositions (qr, svd, eigh) and norms, following the
// real case of PyTorch's FunctionsManual.cpp (linalg_qr_backward, svd_backward,
// linalg_eig_backward, norm_backward). Like PyTorch's, the svd and eigh formulas assume distinct
// singular values / eigenvalues (their gradient is infinite otherwise) and a loss that does not
// depend on the signs of the singular vectors / eigenvectors.
#include <cmath>
#include <string>
#include <tuple>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/autograd/derivatives/linalg_common.h"
#include "src/core/check.h"

namespace ember::autograd::derivatives {

namespace {

// ---- qr ----
// Reduced QR (or any QR with m <= n). With gA₀ = gR Rᵀ - Qᵀ gQ:
//   m >= n: gA = (Q·(triu(gA₀) + triu(gA₀, 1)ᵀ) + gQ) R⁻ᵀ
//   m <  n: gA = [Q·tril(gA₀ᵀ - gA₀) R₁⁻ᵀ, 0] + Q gR, R₁ the leading m x m block of R.
Tensor qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  if (!gQ.defined() && !gR.defined()) return Tensor();
  const int64_t m = Q.size(-2), n = R.size(-1);
  Tensor gA;
  if (gR.defined()) gA = gR.matmul(R.mT());
  if (gQ.defined()) {
    const Tensor QtgQ = Q.mT().matmul(gQ);
    gA = gA.defined() ? gA - QtgQ : -QtgQ;
  }
  if (m >= n) {
    gA = Q.matmul(triu_of(gA) + triu_of(gA, 1).mT());
    if (gQ.defined()) gA = gA + gQ;
    return solve_right(gA, R.mT());
  }
  gA = solve_right(Q.matmul(tril_of(gA.mT() - gA)), R.narrow(-1, 0, m).mT());
  DimVector sizes(gA.sizes());
  sizes.back() = n;
  Tensor full = zeros(sizes, gA.options());
  full.narrow(-1, 0, m).copy_(gA);
  return gR.defined() ? full + Q.matmul(gR) : full;
}

// ---- svd ----
// Townsend, "Differentiating the singular value decomposition" (2016), as PyTorch's
// svd_backward: with skew(X) = X - Xᵀ and E_jk = S_k² - S_j² (1 on the diagonal),
//   gA = U [(skew(Uᵀ gU) / E) S + S (skew(Vᵀ gV) / E) + diag(gS)] Vh
// plus (I - UUᵀ) gU S⁻¹ Vh when m > n, or U S⁻¹ gVh (I - VVᵀ) when m < n.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U,
                    const Tensor& S, const Tensor& Vh) {
  if (!gU.defined() && !gS.defined() && !gVh.defined()) return Tensor();
  const int64_t m = U.size(-2), n = Vh.size(-1);
  if (!gU.defined() && !gVh.defined())  // svdvals: U diag(gS) Vh
    return m >= n ? U.matmul(gS.unsqueeze(-1) * Vh) : (U * gS.unsqueeze(-2)).matmul(Vh);

  auto skew = [](const Tensor& X) { return X - X.mT(); };
  const Tensor S2 = S * S;
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(S.size(-1), S.options());
  Tensor inner;
  if (gU.defined() && gVh.defined()) {
    inner =
        (skew(U.mT().matmul(gU)) * S.unsqueeze(-2) + S.unsqueeze(-1) * skew(Vh.matmul(gVh.mT()))) /
        E;
  } else if (gU.defined()) {
    inner = skew(U.mT().matmul(gU)) / E * S.unsqueeze(-2);
  } else {
    inner = S.unsqueeze(-1) * (skew(Vh.matmul(gVh.mT())) / E);
  }
  if (gS.defined()) inner = inner + diag_embed(gS);

  if (m > n && gU.defined()) {
    const Tensor gU_Sinv = gU / S.unsqueeze(-2);
    const Tensor left = U.matmul(inner) + gU_Sinv - U.matmul(U.mT().matmul(gU_Sinv));
    return left.matmul(Vh);
  }
  if (m < n && gVh.defined()) {
    const Tensor Sinv_gVh = gVh / S.unsqueeze(-1);
    const Tensor right = inner.matmul(Vh) + Sinv_gVh - Sinv_gVh.matmul(Vh.mT()).matmul(Vh);
    return U.matmul(right);
  }
  return m >= n ? U.matmul(inner.matmul(Vh)) : U.matmul(inner).matmul(Vh);
}

// ---- eigh ----
// A = V diag(L) Vᵀ: gA = V (skew(VᵀgV)/2 / E + diag(gL)) Vᵀ with E_ij = L_j - L_i (1 on the
// diagonal); V diag(gL) Vᵀ alone for eigvalsh.
Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  if (!gL.defined() && !gV.defined()) return Tensor();
  if (!gV.defined()) return (V * gL.unsqueeze(-2)).matmul(V.mT());
  const Tensor VtgV = V.mT().matmul(gV);
  const Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye(L.size(-1), L.options());
  Tensor inner = (VtgV - VtgV.mT()) * 0.5 / E;
  if (gL.defined()) inner = inner + diag_embed(gL);
  return V.matmul(inner.matmul(V.mT()));
}

// ---- norms ----
uint64_t dim_mask(IntArrayRef dims) {
  uint64_t mask = 0;
  for (int64_t d : dims) mask |= uint64_t{1} << d;
  return mask;
}
// A reduction's result (or gradient) with its reduced dims put back as size 1.
Tensor keep_reduced(const Tensor& t, int64_t ndim, uint64_t mask, bool keepdim) {
  if (keepdim) return t;
  Tensor r = t;
  for (int64_t d = 0; d < ndim; ++d)
    if (mask >> d & 1) r = r.unsqueeze(d);
  return r;
}
// 1 where `hit`, shared evenly among the hits along `dims` (amax/amin's gradient split).
Tensor share_ties(const Tensor& hit, IntArrayRef dims, ScalarType dtype) {
  const Tensor h = hit.to(dtype);
  return h / h.sum(dims, true);
}

// PyTorch's norm_backward for one p (x and the norm r with the reduced dims kept).
Tensor vector_norm_backward(const Tensor& g, const Tensor& x, const Tensor& r, double p,
                            IntArrayRef dims) {
  if (p == 0) return zeros_like(x);
  if (p == 1) return x.sign() * g;
  if (p == 2) return g * where(r == 0, 0, x / r);
  if (std::isinf(p)) {  // d max|x| / dx: the arg-extremes (or NaNs) share the gradient
    const Tensor ax = x.abs();
    return x.sign() * share_ties((ax == r) | ax.isnan(), dims, x.dtype()) * g;
  }
  if (p < 1) return x.sign() * where(x == 0, 0, x.abs().pow(p - 1)) * g * r.pow(1 - p);
  const Tensor scale = where(r == 0, 0, g / r.pow(p - 1));
  return (p < 2 ? x.sign() * x.abs().pow(p - 1) : x * x.abs().pow(p - 2)) * scale;
}

// The inverse of permutation `perm`.
DimVector inverse_perm(const DimVector& perm) {
  DimVector inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}

// 'nuc', 2, -2: through an SVD of A's matrices (dims d0, d1 moved last): gA = U diag(gS) Vh with
// gS = g for every singular value (nuc) or for the largest / smallest ones (ties share it).
Tensor matrix_norm_svd_backward(const Tensor& g, const Tensor& A, bool nuc, double num, int64_t d0,
                                int64_t d1) {
  DimVector perm;
  for (int64_t d = 0; d < A.dim(); ++d)
    if (d != d0 && d != d1) perm.push_back(d);
  perm.push_back(d0);
  perm.push_back(d1);
  auto [U, S, Vh] = linalg::svd(A.permute(perm), false);
  const int64_t k = S.size(-1);
  if (k == 0) return zeros_like(A);
  const Tensor gk = g.permute(perm).squeeze(-1);  // (*, 1): one gradient per matrix
  Tensor gAp;
  if (nuc) {
    gAp = U.matmul(Vh) * gk.unsqueeze(-1);
  } else {
    const Tensor extreme = S.detach().select(-1, num > 0 ? 0 : k - 1).unsqueeze(-1);
    const Tensor gS = share_ties(S.detach() == extreme, {-1}, S.dtype()) * gk;
    gAp = (U * gS.unsqueeze(-2)).matmul(Vh);
  }
  return gAp.permute(inverse_perm(perm));
}

// 1, -1 (max / min column sum of |A|) and inf, -inf (row sums): sign(A) on the extreme
// column(s) / row(s), ties sharing the gradient as amax does.
Tensor matrix_norm_sum_backward(const Tensor& g, const Tensor& A, double num, int64_t d0,
                                int64_t d1) {
  const int64_t summed = std::abs(num) == 1 ? d0 : d1, across = std::abs(num) == 1 ? d1 : d0;
  const Tensor sums = A.detach().abs().sum({summed}, true);
  const Tensor extreme = num > 0 ? sums.amax({across}, true) : sums.amin({across}, true);
  return A.sign() * share_ties(sums == extreme, {across}, A.dtype()) * g;
}

}  // namespace

// The decompositions' formulas read their saved outputs. Under create_graph they instead
// recompute the (deterministic) decomposition from A, recorded, so that the formula's dependence
// on the outputs is differentiated: a saved output of a multi-output node is saved before
// record() numbers it and would be reattached as output 0, sending a later output's gradient into
// the first one.

void linalg_qr(const Tensor& Q, const Tensor& R, const Tensor& A, std::string_view mode) {
  if (mode == "r") {
    record("LinalgQrBackward0", R, edges_of(A), [](const Tensor&) -> Tensor {
      EMBER_FAIL(
          "linalg.qr: the derivative of linalg.qr depends on Q, which is not computed when "
          "mode='r'. Hint: use linalg.qr(A, mode='reduced') if you are going to differentiate "
          "through linalg.qr");
    });
    return;
  }
  const bool differentiable = mode == "reduced" || A.size(-2) <= A.size(-1);
  record("LinalgQrBackward0", {Q, R}, edges_of(A),
         [a = save(A), q = save_output(Q), r = save_output(R), mode = std::string(mode),
          differentiable](OutputGradList grads, NeedsGrad) -> Grads {
           EMBER_CHECK(differentiable,
                       "linalg.qr: the QR decomposition is not differentiable when "
                       "mode='complete' and nrows > ncols. Hint: use mode='reduced'");
           if (GradMode::is_enabled()) {
             auto [Qa, Ra] = linalg::qr(a.unpack(), mode);
             return qr_backward(grads[0], grads[1], Qa, Ra);
           }
           return qr_backward(grads[0], grads[1], q.unpack(), r.unpack());
         });
}

void linalg_svd(const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& A,
                bool full_matrices) {
  record("LinalgSvdBackward0", {U, S, Vh}, edges_of(A),
         [a = save(A), u = save_output(U), s = save_output(S), vh = save_output(Vh), full_matrices](
             OutputGradList grads, NeedsGrad) -> Grads {
           Tensor Uv, Sv, Vhv;
           if (GradMode::is_enabled())
             std::tie(Uv, Sv, Vhv) = linalg::svd(a.unpack(), full_matrices);
           else
             Uv = u.unpack(), Sv = s.unpack(), Vhv = vh.unpack();
           Tensor gU = grads[0], gVh = grads[2];
           if (full_matrices) {  // the vectors past min(m, n) are arbitrary: their grads ignored
             const int64_t k = Sv.size(-1);
             Uv = Uv.narrow(-1, 0, k);
             Vhv = Vhv.narrow(-2, 0, k);
             if (gU.defined()) gU = gU.narrow(-1, 0, k);
             if (gVh.defined()) gVh = gVh.narrow(-2, 0, k);
           }
           return svd_backward(gU, grads[1], gVh, Uv, Sv, Vhv);
         });
}

void linalg_eigh(const Tensor& L, const Tensor& V, const Tensor& A, std::string_view UPLO) {
  record("LinalgEighBackward0", {L, V}, edges_of(A),
         [a = save(A), l = save_output(L), v = save_output(V), upper = UPLO == "U" || UPLO == "u"](
             OutputGradList grads, NeedsGrad) -> Grads {
           if (GradMode::is_enabled()) {
             auto [La, Va] = linalg::eigh(a.unpack(), upper ? "U" : "L");
             return eigh_backward(grads[0], grads[1], La, Va);
           }
           return eigh_backward(grads[0], grads[1], l.unpack(), v.unpack());
         });
}

void linalg_vector_norm(const Tensor& result, const Tensor& x, double ord, IntArrayRef dims,
                        bool keepdim) {
  record("LinalgVectorNormBackward0", result, edges_of(x),
         [self = save(x), norm = save_output(result), ord, dims = DimVector(dims),
          keepdim](const Tensor& grad) {
           const Tensor x = self.unpack();
           const uint64_t mask = dim_mask(dims);
           return vector_norm_backward(keep_reduced(grad, x.dim(), mask, keepdim), x,
                                       keep_reduced(norm.unpack(), x.dim(), mask, keepdim), ord,
                                       dims);
         });
}

void linalg_matrix_norm(const Tensor& result, const Tensor& A, std::string_view ord, double num,
                        IntArrayRef dims, bool keepdim) {
  record("LinalgMatrixNormBackward0", result, edges_of(A),
         [a = save(A), norm = ord == "fro" ? save_output(result) : SavedVariable(),
          ord = std::string(ord), num, d0 = dims[0], d1 = dims[1], keepdim](const Tensor& grad) {
           const Tensor A = a.unpack();
           const uint64_t mask = dim_mask({d0, d1});
           const Tensor g = keep_reduced(grad, A.dim(), mask, keepdim);
           if (ord == "fro")
             return vector_norm_backward(g, A, keep_reduced(norm.unpack(), A.dim(), mask, keepdim),
                                         2, {d0, d1});
           if (ord == "nuc" || std::abs(num) == 2)
             return matrix_norm_svd_backward(g, A, ord == "nuc", num, d0, d1);
           return matrix_norm_sum_backward(g, A, num, d0, d1);
         });
}

}  // namespace ember::autograd::derivatives
