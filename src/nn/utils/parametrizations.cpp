// weight_norm and spectral_norm as parametrization modules (Python's _WeightNorm, _SpectralNorm).
#include "ember/nn/utils/parametrizations.h"

#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/utils/parametrize.h"
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

}  // namespace ember::nn::utils::parametrizations
