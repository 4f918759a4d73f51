// geqrf through the LAPACK slot, and householder_product composed of differentiable ops.
//
// householder_product applies the reflectors right to left to the first n columns of the
// identity, Q ← Q − τ_i v_i (v_iᵀ Q) for i = k−1 … 0, as LAPACK's orgqr does: O(k·m·n) work in
// matmuls, and autograd differentiates it through those ops (PyTorch has a hand-written
// derivative; the composite gives the same gradients, at the cost of keeping k intermediate Qs).
#include "ember/ops/linalg_householder.h"

#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "kernels/common/lapack_params.h"
#include "src/ops/linalg_common.h"

namespace ember {
using linalg::detail::batch_count;
using linalg::detail::batch_shape;
using linalg::detail::with_matrix;

std::tuple<Tensor, Tensor> geqrf(const Tensor& A) {
  const char* op = "geqrf";
  linalg::detail::check_matrix(op, A, false);
  const auto kernel = linalg::detail::lapack_kernel<OpId::geqrf>(op, A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  const int64_t count = batch_count(batch);
  DimVector tau_shape(batch);
  tau_shape.push_back(k);
  autograd::NoGradGuard no_grad;  // PyTorch's geqrf has no derivative either
  if (count == 0 || k == 0) return {A.detach().clone(), zeros(tau_shape, A.options())};
  Tensor a = linalg::detail::column_major(A.detach().reshape({count, m, n}));
  Tensor tau = empty({count, k}, A.options());
  std::vector<int32_t> info = linalg::detail::info_buffer(count);
  QrFactorParams f;
  f.op = op;
  f.info = info.data();
  f.a = linalg::detail::matrices_of(a, n);
  f.tau = tau.data_ptr();
  kernel(A.dtype(), f);
  linalg::detail::check_lapack_call(op, "geqrf", info);
  return {linalg::detail::from_column_major(a, m, n).reshape(with_matrix(batch, {m, n})),
          tau.reshape(tau_shape)};
}

Tensor linalg::householder_product(const Tensor& A, const Tensor& tau) {
  const char* op = "linalg.householder_product";
  detail::check_matrix(op, A, false, "input");
  detail::check_input(op, tau, "tau");
  EMBER_CHECK_TYPE(tau.dtype() == A.dtype(),
                   "{}: tau must have the dtype of input ({}), but got {}", op, A.dtype(),
                   tau.dtype());
  const int64_t m = A.size(-2), n = A.size(-1);
  EMBER_CHECK_VALUE(
      m >= n, "{}: input must have at least as many rows as columns, but it is {} by {}", op, m, n);
  EMBER_CHECK_VALUE(tau.dim() == A.dim() - 1 && tau.size(-1) <= n,
                    "{}: tau must have shape [..., k] with k <= {} (input {}), but got {}", op, n,
                    A.sizes(), tau.sizes());
  for (int64_t d = 0; d + 1 < tau.dim(); ++d)
    EMBER_CHECK_VALUE(tau.size(d) == A.size(d),
                      "{}: the batch dims of tau {} and input {} must be equal", op, tau.sizes(),
                      A.sizes());
  const int64_t k = tau.size(-1);
  // V: the reflectors' vectors (unit diagonal, zeros above it).
  const Tensor V = A.tril(-1) + eye(m, n, A.options());
  Tensor Q = eye(m, n, A.options()).expand(A.sizes()).clone();
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor v = V.narrow(-1, i, 1);                  // [..., m, 1]
    const Tensor t = tau.narrow(-1, i, 1).unsqueeze(-1);  // [..., 1, 1]
    Q = Q - (t * v).matmul(v.transpose(-2, -1).matmul(Q));
  }
  return Q;
}

Tensor orgqr(const Tensor& A, const Tensor& tau) { return linalg::householder_product(A, tau); }

}  // namespace ember
