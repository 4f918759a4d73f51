// Householder reflectors: geqrf's compact QR factorisation and householder_product (LAPACK's
// orgqr), as torch::geqrf, torch::linalg::householder_product and torch::orgqr. The orthogonal
// parametrization (nn/utils/parametrizations.h) builds on them.
#pragma once

#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

/// LAPACK's geqrf on each matrix of A [..., m, n] (float32/float64): `a` [..., m, n] holds R on
/// and above the diagonal and the Householder vectors below it (implicit unit diagonal), `tau`
/// [..., min(m, n)] their scales. Not differentiable (as PyTorch's).
EMBER_API std::tuple<Tensor, Tensor> geqrf(const Tensor& A);

/// The same as linalg::householder_product.
EMBER_API Tensor orgqr(const Tensor& A, const Tensor& tau);

namespace linalg {

/// The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_iᴴ, where v_i is column i of
/// A [..., m, n] (m >= n) below the diagonal with a 1 on it, and k = tau.size(-1) <= n.
/// Differentiable in A and tau.
EMBER_API Tensor householder_product(const Tensor& A, const Tensor& tau);

}  // namespace linalg

EMBER_API inline Tensor linalg_householder_product(const Tensor& A, const Tensor& tau) {
  return linalg::householder_product(A, tau);
}

}  // namespace ember
