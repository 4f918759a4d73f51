// F::batch_norm, F::instance_norm and F::group_norm: LibTorch's (and Python's) argument checks in
// front of ember::batch_norm / instance_norm / group_norm (src/ops/nn_batchnorm.cpp).
#include "ember/nn/functional/batchnorm.h"

#include "ember/nn/functional/instancenorm.h"
#include "ember/nn/functional/normalization.h"
#include "ember/ops/nn_batchnorm.h"
#include "src/core/check.h"

namespace ember::nn::functional {
namespace {

// N · (spatial size): the number of values each channel's statistics are taken over.
int64_t batchnorm_values_per_channel(const Tensor& input) {
  int64_t n = input.size(0);
  for (int64_t d = 2; d < input.dim(); ++d) n *= input.size(d);
  return n;
}

void batchnorm_check_rank(const Tensor& input, const char* op) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", op);
  EMBER_CHECK_VALUE(input.dim() >= 2,
                    "{}: expected input with at least 2 dims [N, C, *], got input {}", op,
                    input.sizes());
}

}  // namespace

namespace detail {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  Tensor weight, Tensor bias, bool training, std::optional<double> momentum,
                  double eps) {
  batchnorm_check_rank(input, "batch_norm");
  if (training)
    EMBER_CHECK_VALUE(batchnorm_values_per_channel(input) != 1,
                      "batch_norm: Expected more than 1 value per channel when training, got "
                      "input size {}",
                      input.sizes());
  EMBER_CHECK_VALUE(momentum.has_value(),
                    "batch_norm: momentum is unset. Hint: F::batch_norm needs a momentum; the "
                    "BatchNorm modules turn an unset momentum into the cumulative average");
  return ember::batch_norm(input, weight, bias, running_mean, running_var, training, *momentum,
                           eps);
}

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                     const Tensor& weight, const Tensor& bias, bool use_input_stats,
                     double momentum, double eps) {
  batchnorm_check_rank(input, "instance_norm");
  if (use_input_stats) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
    EMBER_CHECK_VALUE(spatial != 1,
                      "instance_norm: Expected more than 1 spatial element when training, got "
                      "input size {}",
                      input.sizes());
  }
  return ember::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                              momentum, eps);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  batchnorm_check_rank(input, "group_norm");
  return ember::group_norm(input, num_groups, weight, bias, eps);
}

}  // namespace detail

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  return detail::batch_norm(input, running_mean, running_var, o.weight(), o.bias(), o.training(),
                            o.momentum(), o.eps());
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  return detail::instance_norm(input, o.running_mean(), o.running_var(), o.weight(), o.bias(),
                               o.use_input_stats(), o.momentum(), o.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  return detail::group_norm(input, o.num_groups(), o.weight(), o.bias(), o.eps());
}

}  // namespace ember::nn::functional
