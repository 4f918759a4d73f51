// Small matrix helpers the linalg backward formulas share, written with differentiable ops.
#pragma once

#include <type_traits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"

namespace ember::autograd::derivatives {

/// The gradients of a node with several outputs (each may be undefined: zero). FnNode calls a
/// formula with the first output's gradient alone when it accepts a `const Tensor&`, and
/// ArrayRef<Tensor> converts from one; this type converts from an ArrayRef only, so the formula
/// always receives every output's gradient.
struct OutputGradList {
  template <class T, std::enable_if_t<std::is_same_v<T, ArrayRef<Tensor>>, int> = 0>
  OutputGradList(T g) : grads(g) {}  // NOLINT: implicit from the node's gradient list
  const Tensor& operator[](size_t i) const { return grads[i]; }
  ArrayRef<Tensor> grads;
};

/// The (*, n, n) diagonal matrices with the (*, n) vectors `v` on their diagonals.
inline Tensor diag_embed(const Tensor& v) { return v.unsqueeze(-1) * eye(v.size(-1), v.options()); }

/// X with the elements above diagonal `k` (tril) or below it (triu) zeroed, by a 0/1 mask:
/// a product, so the gradient flows through it.
inline Tensor tril_of(const Tensor& X, int64_t k = 0) {
  return X * ones({X.size(-2), X.size(-1)}, X.options()).tril(k);
}
inline Tensor triu_of(const Tensor& X, int64_t k = 0) {
  return X * ones({X.size(-2), X.size(-1)}, X.options()).triu(k);
}

/// X·M⁻¹ (a solve from the right: (M⁻ᵀ Xᵀ)ᵀ).
inline Tensor solve_right(const Tensor& X, const Tensor& M) {
  return linalg::solve(M.mT(), X.mT()).mT();
}

}  // namespace ember::autograd::derivatives
