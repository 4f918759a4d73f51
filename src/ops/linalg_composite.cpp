// The ember::linalg functions composed of others (no LAPACK call of their own, and autograd
// through their parts): norm (dispatching to vector_norm / matrix_norm by ord and dim), cross,
// pinv and matrix_rank (from svd / eigh, as PyTorch composes them).
#include <algorithm>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/ops/op_common.h"

namespace ember::linalg {

Tensor norm(const Tensor& x, const std::optional<Scalar>& ord, OptionalIntArrayRef dim,
            bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "linalg.norm";
  check_defined(x, op, "x");
  if (dim) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2,
                "{}: If dim is specified, it must be of length 1 or 2. Got {}", op, *dim);
  } else if (ord) {
    EMBER_CHECK(x.dim() == 1 || x.dim() == 2,
                "{}: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D. "
                "Hint: pass dim",
                op, x.dim());
  }
  // No ord: the 2-norm of the entries (of x flattened, or over dim): Frobenius for matrices.
  if (!ord) return vector_norm(x, 2, dim, keepdim, dtype);
  const bool matrix = dim ? dim->size() == 2 : x.dim() == 2;
  if (!matrix) return vector_norm(x, *ord, dim, keepdim, dtype);
  const std::vector<int64_t> dims = dim ? dim->vec() : std::vector<int64_t>{-2, -1};
  return matrix_norm(x, *ord, dims, keepdim, dtype);
}

Tensor norm(const Tensor& x, std::string_view ord, OptionalIntArrayRef dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  const char* op = "linalg.norm";
  check_defined(x, op, "x");
  EMBER_CHECK(dim ? dim->size() == 2 : x.dim() == 2,
              "{}: If dim is not specified but ord is, the input must be 2D, and a string ord "
              "takes a dim of length 2; got a {}D input and dim {}",
              op, x.dim(), dim ? fmt::format("{}", *dim) : std::string("None"));
  const std::vector<int64_t> dims = dim ? dim->vec() : std::vector<int64_t>{-2, -1};
  return matrix_norm(x, ord, dims, keepdim, dtype);
}

Tensor cross(const Tensor& input, const Tensor& other, int64_t dim) {
  const char* op = "linalg.cross";
  check_defined(input, op, "input");
  check_defined(other, op, "other");
  check_same_device({&input, &other}, op);
  EMBER_CHECK_TYPE(input.dtype() == other.dtype(),
                   "{}: expected input and other to have the same dtype, but got {} and {}", op,
                   input.dtype(), other.dtype());
  EMBER_CHECK(input.dim() == other.dim(),
              "{}: inputs must have the same number of dimensions, but got {} and {}", op,
              input.dim(), other.dim());
  const DimVector shape = broadcast_shape(input.sizes(), other.sizes(), op);
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(shape.size()), op);
  EMBER_CHECK(input.size(d) == 3 && other.size(d) == 3,
              "{}: inputs dimension {} must have length 3. Got {} and {}", op, dim, input.size(d),
              other.size(d));
  const Tensor a = input.expand(shape), b = other.expand(shape);
  auto at = [d](const Tensor& t, int64_t i) { return t.select(d, i); };
  return stack(
      {at(a, 1) * at(b, 2) - at(a, 2) * at(b, 1), at(a, 2) * at(b, 0) - at(a, 0) * at(b, 2),
       at(a, 0) * at(b, 1) - at(a, 1) * at(b, 0)},
      d);
}

namespace {
// max(atol, rtol·σ_max) per matrix ([*, 1]), with PyTorch's defaults: rtol = eps·max(m, n) when
// neither tolerance is given, 0 when only atol is.
Tensor rank_tolerance(const Tensor& A, const Tensor& sigma_max, std::optional<double> atol,
                      std::optional<double> rtol) {
  double r = 0;
  if (rtol) {
    r = *rtol;
  } else if (!atol || *atol <= 0) {
    const double eps = A.dtype() == kDouble ? std::numeric_limits<double>::epsilon()
                                            : std::numeric_limits<float>::epsilon();
    r = eps * static_cast<double>(std::max(A.size(-2), A.size(-1)));
  }
  return clamp_min(sigma_max * r, atol.value_or(0.0));
}

void check_pinv_input(const char* op, const Tensor& A, bool hermitian) {
  check_defined(A, op, "A");
  EMBER_CHECK(A.dim() >= 2,
              "{}: A must have at least 2 dimensions, but got a {}-D tensor of shape {}", op,
              A.dim(), A.sizes());
  EMBER_CHECK(!hermitian || A.size(-1) == A.size(-2),
              "{}: with hermitian=true, A must be batches of square matrices, but they are {} by "
              "{} matrices",
              op, A.size(-2), A.size(-1));
}

// The batch shape with `tail` appended.
DimVector batch_with(const Tensor& A, std::initializer_list<int64_t> tail) {
  DimVector s(A.sizes().slice(0, A.dim() - 2));
  for (int64_t t : tail) s.push_back(t);
  return s;
}
}  // namespace

Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
            bool hermitian) {
  const char* op = "linalg.pinv";
  check_pinv_input(op, A, hermitian);
  if (A.numel() == 0) return zeros(batch_with(A, {A.size(-1), A.size(-2)}), A.options());
  if (hermitian) {
    // A = V·diag(λ)·Vᵀ, so A⁺ = V·diag(1/λ on the kept λ)·Vᵀ; the tolerance is on |λ|.
    auto [L, V] = eigh(A);
    const Tensor absL = abs(L);
    const Tensor keep = absL > rank_tolerance(A, amax(absL, {-1}, true), atol, rtol);
    // 1/λ only where kept: the dropped entries divide 1, so no inf reaches the gradient.
    const Tensor inv_l = where(keep, 1.0 / where(keep, L, ones_like(L)), zeros_like(L));
    return matmul(V * inv_l.unsqueeze(-2), V.mT());
  }
  auto [U, S, Vh] = svd(A, false);
  const Tensor keep = S > rank_tolerance(A, S.narrow(-1, 0, 1), atol, rtol);
  const Tensor inv_s = where(keep, 1.0 / where(keep, S, ones_like(S)), zeros_like(S));
  return matmul(Vh.mT() * inv_s.unsqueeze(-2), U.mT());
}

Tensor pinv(const Tensor& A, double rcond, bool hermitian) {
  return pinv(A, 0.0, rcond, hermitian);
}

Tensor matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian) {
  const char* op = "linalg.matrix_rank";
  check_pinv_input(op, A, hermitian);
  NoGradGuard no_grad;  // an integer count: nothing to differentiate
  if (A.numel() == 0) return zeros(batch_with(A, {}), A.options().dtype(kLong));
  const Tensor S = hermitian ? abs(eigvalsh(A)) : svdvals(A);
  const Tensor sigma_max = amax(S, {-1}, true);
  return sum(S > rank_tolerance(A, sigma_max, atol, rtol), {-1});
}

Tensor matrix_rank(const Tensor& A, double tol, bool hermitian) {
  return matrix_rank(A, tol, 0.0, hermitian);
}

}  // namespace ember::linalg
