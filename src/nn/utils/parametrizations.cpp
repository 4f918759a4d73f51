// weight_norm, spectral_norm and orthogonal as parametrization modules (Python's _WeightNorm,
// _SpectralNorm, _Orthogonal).
#include "ember/nn/utils/parametrizations.h"

#include <limits>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/utils/parametrize.h"
#include "ember/ops/linalg_householder.h"
#include "src/core/check.h"

namespace ember::nn::utils::parametrizations {
namespace {

/// ||v|| over every dim but `dim` (kept, others of size 1), or over all of v when dim is -1:
/// torch.norm_except_dim(v, 2, dim).
Tensor norm_except_dim(const Tensor& v, int64_t dim) {
  if (dim == -1) return ember::linalg::vector_norm(v, 2);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < v.dim(); ++d)
    if (d != dim) dims.push_back(d);
  return ember::linalg::vector_norm(v, 2, dims, /*keepdim=*/true);
}

class WeightNormImpl : public Module {
 public:
  explicit WeightNormImpl(int64_t dim) : Module("_WeightNorm"), dim_(dim) {}
  Tensor forward(const Tensor& g, const Tensor& v) { return v * (g / norm_except_dim(v, dim_)); }
  std::tuple<Tensor, Tensor> right_inverse(const Tensor& weight) {
    return {norm_except_dim(weight, dim_), weight};
  }

 private:
  int64_t dim_;
};

class SpectralNormImpl : public Module {
 public:
  SpectralNormImpl(const Tensor& weight, int64_t n_power_iterations, int64_t dim, double eps)
      : Module("_SpectralNorm"), n_power_iterations_(n_power_iterations), eps_(eps) {
    const int64_t ndim = weight.dim();
    EMBER_CHECK_INDEX(dim < ndim && dim >= -ndim,
                      "spectral_norm: dimension out of range (expected to be in range of [{}, {}] "
                      "but got {})",
                      -ndim, ndim - 1, dim);
    EMBER_CHECK_VALUE(n_power_iterations > 0,
                      "spectral_norm: expected n_power_iterations to be positive, but got "
                      "n_power_iterations={}",
                      n_power_iterations);
    dim_ = dim >= 0 ? dim : dim + ndim;
    if (ndim > 1) {
      autograd::NoGradGuard no_grad;
      Tensor mat = as_matrix(weight.detach());
      auto opts = mat.options();
      u_ = register_buffer("_u", normalized(ember::randn({mat.size(0)}, opts)));
      v_ = register_buffer("_v", normalized(ember::randn({mat.size(1)}, opts)));
      // A good first estimate, as Python's: 15 steps before the first use.
      power_method(mat, 15);
    }
  }

  Tensor forward(const Tensor& weight) {
    if (weight.dim() == 1) return normalized(weight);
    Tensor mat = as_matrix(weight);
    if (is_training()) power_method(mat.detach(), n_power_iterations_);
    // Clones, so that later in-place steps do not invalidate this call's graph.
    Tensor u = u_.clone();
    Tensor v = v_.clone();
    Tensor sigma = ember::dot(u, ember::mv(mat, v));
    return weight / sigma;
  }

  Tensor right_inverse(const Tensor& value) { return value; }

 private:
  Tensor normalized(const Tensor& x) const {
    return functional::detail::normalize(x, 2.0, 0, eps_, std::nullopt);
  }

  // The tensor as a matrix: dim_ first, the other dims flattened in order.
  Tensor as_matrix(const Tensor& weight) const {
    Tensor w = weight;
    if (dim_ != 0) {
      std::vector<int64_t> order{dim_};
      for (int64_t d = 0; d < weight.dim(); ++d)
        if (d != dim_) order.push_back(d);
      w = w.permute(order);
    }
    return w.flatten(1);
  }

  // u ← normalize(W v), v ← normalize(Wᵀ u), in place so the buffers keep their identity.
  void power_method(const Tensor& mat, int64_t steps) {
    autograd::NoGradGuard no_grad;
    for (int64_t i = 0; i < steps; ++i) {
      u_.copy_(normalized(ember::mv(mat, v_)));
      v_.copy_(normalized(ember::mv(mat.t(), u_)));
    }
  }

  int64_t n_power_iterations_;
  double eps_;
  int64_t dim_ = 0;
  Tensor u_, v_;
};

enum class OrthogonalMap { matrix_exp, cayley, householder };

// A matrix (batch) seen tall: transposed when it has fewer rows than columns, as both of
// _Orthogonal's directions work on n x k with n >= k.
struct TallView {
  Tensor matrix;
  bool transposed;
  int64_t n, k;
};
TallView as_tall(const Tensor& x) {
  const int64_t rows = x.size(-2), cols = x.size(-1);
  if (rows < cols) return {x.mT(), true, cols, rows};
  return {x, false, rows, cols};
}

// Whether the columns of Q [..., n, k] are orthonormal to 10·n·eps (Python's _is_orthogonal).
bool is_orthogonal(const Tensor& Q) {
  const int64_t n = Q.size(-2), k = Q.size(-1);
  const double eps = Q.scalar_type() == kDouble ? std::numeric_limits<double>::epsilon()
                                                : std::numeric_limits<float>::epsilon();
  return ember::allclose(Q.mT().matmul(Q), ember::eye(k, Q.options()), 1e-5, 10.0 * n * eps);
}

// The Q of A's QR factorisation with R's diagonal made positive (unique for full-rank A).
Tensor make_orthogonal(const Tensor& A) {
  auto [X, tau] = ember::geqrf(A);
  Tensor Q = ember::linalg::householder_product(X, tau);
  return Q * X.diagonal(0, -2, -1).sign().unsqueeze(-2);
}

class OrthogonalImpl : public Module {
 public:
  OrthogonalImpl(const Tensor& weight, OrthogonalMap map, bool use_trivialization)
      : Module("_Orthogonal"),
        shape_(weight.sizes().vec()),
        map_(map),
        use_trivialization_(use_trivialization) {}

  Tensor forward(const Tensor& original) {
    auto [X, transposed, n, k] = as_tall(original);
    Tensor Q;
    if (map_ == OrthogonalMap::householder) {
      Tensor A = X.tril(-1);
      Tensor tau = 2.0 / (1.0 + (A * A).sum(-2));
      Q = ember::linalg::householder_product(A, tau);
      // The sign of each column comes from the truncated diagonal (Python's X.diagonal().int()):
      // the trivialization's original holds -1 there, which undoes the reflectors' -1.
      Q = Q * X.diagonal(0, -2, -1).to(kInt).unsqueeze(-2);
    } else {
      X = X.tril();
      if (n != k) {
        std::vector<int64_t> pad_shape = X.sizes().vec();
        pad_shape.back() = n - k;
        X = ember::cat({X, ember::zeros(pad_shape, X.options())}, -1);
      }
      Tensor A = X - X.mT();  // skew-symmetric
      if (map_ == OrthogonalMap::matrix_exp) {
        Q = ember::linalg::matrix_exp(A);
      } else {
        Tensor id = ember::eye(n, A.options());
        Q = ember::linalg::solve(id - 0.5 * A, id + 0.5 * A);
      }
      if (n != k) Q = Q.narrow(-1, 0, k);
    }
    if (base_.defined()) Q = base_.matmul(Q);
    return transposed ? Q.mT() : Q;
  }

  Tensor right_inverse(const Tensor& value) {
    EMBER_CHECK_VALUE(value.sizes().equals(shape_),
                      "orthogonal: expected a matrix or batch of matrices of shape {}, got a "
                      "tensor of shape {}",
                      value.sizes(), IntArrayRef(shape_));
    autograd::NoGradGuard no_grad;
    auto [Q, transposed, n, k] = as_tall(value);
    if (!use_trivialization_) {
      EMBER_CHECK_AS(NotImplementedError, map_ == OrthogonalMap::householder,
                     "orthogonal: it is not possible to assign to the matrix exponential or the "
                     "Cayley parametrizations when use_trivialization=false");
      auto [A, tau] = ember::geqrf(Q);
      // The diagonal keeps only each column's sign (forward reads it through .int()); a zero tau
      // means no reflector on that column, which the forward's -1 convention must flip back.
      Tensor diag = A.diagonal(0, -2, -1);
      Tensor sign = diag.sign();
      diag.copy_(ember::where(tau == 0.0, -sign, sign));
      return transposed ? A.mT() : A;
    }
    if (n == k) {
      Q = is_orthogonal(Q) ? Q.clone() : make_orthogonal(Q);
    } else {
      // Complete the k columns to an n x n orthogonal matrix with random ones (Python's randn).
      std::vector<int64_t> extra_shape = Q.sizes().vec();
      extra_shape.back() = n - k;
      Q = make_orthogonal(ember::cat({Q, ember::randn(extra_shape, Q.options())}, -1));
    }
    if (base_.defined())
      base_.copy_(Q);
    else
      base_ = register_buffer("base", Q);
    // The map's preimage of the identity: -1 on the diagonal (householder reads the diagonal's
    // sign; the skew part of a diagonal is zero for matrix_exp and cayley).
    Tensor neg_id = ember::zeros_like(value);
    neg_id.diagonal(0, -2, -1).fill_(-1.0);
    return neg_id;
  }

 private:
  std::vector<int64_t> shape_;
  OrthogonalMap map_;
  bool use_trivialization_;
  Tensor base_;
};

// What Python's getattr(module, name) gives: the parametrized value when `name` is parametrized
// already (a chain), else the registry entry; throws naming the op when there is neither.
Tensor registered_tensor(const char* op, Module& module, const std::string& name) {
  if (parametrize::is_parametrized(module, name))
    return parametrize::parametrization_list(module, name)->slot();
  for (const auto& p : module.named_parameters(/*recurse=*/false))
    if (p.key() == name) return p.value();
  for (const auto& b : module.named_buffers(/*recurse=*/false))
    if (b.key() == name) return b.value();
  EMBER_CHECK_VALUE(false, "{}: module '{}' has no parameter or buffer '{}'", op, module.name(),
                    name);
  return {};
}

bool is_conv_transpose(const Module& module) {
  return dynamic_cast<const ConvTranspose1dImpl*>(&module) != nullptr ||
         dynamic_cast<const ConvTranspose2dImpl*>(&module) != nullptr ||
         dynamic_cast<const ConvTranspose3dImpl*>(&module) != nullptr;
}

}  // namespace

void weight_norm(Module& module, const std::string& name, std::optional<int64_t> dim) {
  Tensor weight = registered_tensor("weight_norm", module, name);
  int64_t d = dim ? *dim : -1;
  // Python keeps -1 as "the whole tensor" (norm_except_dim's convention); other negatives wrap.
  if (d < -1) d += weight.dim();
  EMBER_CHECK_INDEX(d >= -1 && d < std::max<int64_t>(weight.dim(), 1),
                    "weight_norm: dim {} out of range for a tensor of {} dims", *dim, weight.dim());
  parametrize::register_parametrization(module, name, std::make_shared<WeightNormImpl>(d),
                                        /*unsafe=*/true);
}

void spectral_norm(Module& module, const std::string& name, int64_t n_power_iterations, double eps,
                   std::optional<int64_t> dim) {
  Tensor weight = registered_tensor("spectral_norm", module, name);
  const int64_t d = dim ? *dim : (is_conv_transpose(module) ? 1 : 0);
  parametrize::register_parametrization(
      module, name, std::make_shared<SpectralNormImpl>(weight, n_power_iterations, d, eps));
}

void orthogonal(Module& module, const std::string& name, std::optional<std::string> orthogonal_map,
                bool use_trivialization) {
  Tensor weight = registered_tensor("orthogonal", module, name);
  EMBER_CHECK_VALUE(weight.dim() >= 2,
                    "orthogonal: expected a matrix or batch of matrices, got a tensor of {} "
                    "dimensions",
                    weight.dim());
  const std::string map_name = orthogonal_map                       ? *orthogonal_map
                               : weight.size(-2) == weight.size(-1) ? "matrix_exp"
                                                                    : "householder";
  OrthogonalMap map;
  if (map_name == "matrix_exp")
    map = OrthogonalMap::matrix_exp;
  else if (map_name == "cayley")
    map = OrthogonalMap::cayley;
  else if (map_name == "householder")
    map = OrthogonalMap::householder;
  else
    EMBER_CHECK_VALUE(false,
                      "orthogonal: orthogonal_map has to be one of \"matrix_exp\", \"cayley\", "
                      "\"householder\". Got: {}",
                      map_name);
  parametrize::register_parametrization(
      module, name, std::make_shared<OrthogonalImpl>(weight, map, use_trivialization),
      /*unsafe=*/true);
}

}  // namespace ember::nn::utils::parametrizations
