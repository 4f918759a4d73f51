// weight_norm as a parametrization module (Python's _WeightNorm).
#include "ember/nn/utils/parametrizations.h"

#include <tuple>
#include <vector>

#include "ember/ember.h"
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

}  // namespace

void weight_norm(Module& module, const std::string& name, std::optional<int64_t> dim) {
  Tensor weight;
  for (const auto& p : module.named_parameters(/*recurse=*/false))
    if (p.key() == name) weight = p.value();
  for (const auto& b : module.named_buffers(/*recurse=*/false))
    if (b.key() == name) weight = b.value();
  EMBER_CHECK_VALUE(weight.defined(), "weight_norm: module '{}' has no parameter or buffer '{}'",
                    module.name(), name);
  int64_t d = dim ? *dim : -1;
  // Python keeps -1 as "the whole tensor" (norm_except_dim's convention); other negatives wrap.
  if (d < -1) d += weight.dim();
  EMBER_CHECK_INDEX(d >= -1 && d < std::max<int64_t>(weight.dim(), 1),
                    "weight_norm: dim {} out of range for a tensor of {} dims", *dim, weight.dim());
  parametrize::register_parametrization(module, name, std::make_shared<WeightNormImpl>(d),
                                        /*unsafe=*/true);
}

}  // namespace ember::nn::utils::parametrizations
