// BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d: registration of parameters and buffers, the input
// rank checks, the momentum rule (cumulative average when unset) and printing. The math is in
// src/ops/nn_batchnorm.cpp.
#include "ember/nn/modules/batchnorm.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/batchnorm.h"
#include "ember/nn/functional/instancenorm.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/instancenorm.h"
#include "ember/ops/factory.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;

namespace detail {

void norm_register(Module& module, int64_t num_features, bool affine, bool track_running_stats,
                   Tensor& weight, Tensor& bias, Tensor& running_mean, Tensor& running_var,
                   Tensor& num_batches_tracked) {
  EMBER_CHECK_VALUE(num_features >= 0, "{}: num_features must be non-negative, got {}",
                    module.name(), num_features);
  if (affine) {
    weight = module.register_parameter("weight", ember::empty({num_features}));
    bias = module.register_parameter("bias", ember::empty({num_features}));
  } else {
    weight = module.register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = module.register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  if (track_running_stats) {
    running_mean = module.register_buffer("running_mean", ember::zeros({num_features}));
    running_var = module.register_buffer("running_var", ember::ones({num_features}));
    num_batches_tracked =
        module.register_buffer("num_batches_tracked", ember::zeros({}, TensorOptions(kLong)));
  } else {
    running_mean = module.register_buffer("running_mean", Tensor());
    running_var = module.register_buffer("running_var", Tensor());
    num_batches_tracked = module.register_buffer("num_batches_tracked", Tensor());
  }
}

void norm_reset_running_stats(const Tensor& running_mean, const Tensor& running_var,
                              const Tensor& num_batches_tracked) {
  NoGradGuard no_grad;
  if (running_mean.defined()) running_mean.zero_();
  if (running_var.defined()) running_var.fill_(1);
  if (num_batches_tracked.defined()) num_batches_tracked.zero_();
}

void norm_reset_affine(const Tensor& weight, const Tensor& bias) {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

void norm_check_rank(const Tensor& input, const char* module, int64_t rank_a, int64_t rank_b) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", module);
  const int64_t r = input.dim();
  if (rank_b > 0)
    EMBER_CHECK_VALUE(r == rank_a || r == rank_b, "{}: expected {}D or {}D input (got {}D input)",
                      module, rank_a, rank_b, r);
  else
    EMBER_CHECK_VALUE(r == rank_a, "{}: expected {}D input (got {}D input)", module, rank_a, r);
}

Tensor batchnorm_module_forward(const char* module, const Tensor& input,
                                const BatchNormOptions& options, bool training,
                                const Tensor& weight, const Tensor& bias,
                                const Tensor& running_mean, const Tensor& running_var,
                                const Tensor& num_batches_tracked) {
  double factor = options.momentum().value_or(0.0);
  if (training && options.track_running_stats() && num_batches_tracked.defined()) {
    {
      NoGradGuard no_grad;
      num_batches_tracked.add_(1);
    }
    // No momentum: the cumulative moving average, each batch weighted 1 / batches seen.
    if (!options.momentum())
      factor = 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
  }
  return named_call(module, [&] {
    return F::detail::batch_norm(input, running_mean, running_var, weight, bias,
                                 training || !options.track_running_stats(), factor, options.eps());
  });
}

void batchnorm_pretty_print(std::ostream& stream, int64_t dims, const BatchNormOptions& o) {
  stream << std::boolalpha << "ember::nn::BatchNorm" << dims << "d(" << o.num_features()
         << ", eps=" << o.eps() << ", momentum=";
  if (o.momentum())
    stream << *o.momentum();
  else
    stream << "None";
  stream << ", affine=" << o.affine() << ", track_running_stats=" << o.track_running_stats() << ")";
}

Tensor instancenorm_module_forward(const char* module, int64_t dims, const Tensor& input,
                                   const InstanceNormOptions& options, bool training,
                                   const Tensor& weight, const Tensor& bias,
                                   const Tensor& running_mean, const Tensor& running_var) {
  const bool unbatched = input.dim() == dims + 1;
  const int64_t feature_dim = unbatched ? 0 : 1;
  if (options.affine())
    EMBER_CHECK_VALUE(input.size(feature_dim) == options.num_features(),
                      "{}: expected input's size at dim={} to match num_features ({}), but got: "
                      "{} (input {})",
                      module, feature_dim, options.num_features(), input.size(feature_dim),
                      input.sizes());
  return named_call(module, [&] {
    const Tensor x = unbatched ? input.unsqueeze(0) : input;
    Tensor y = F::detail::instance_norm(x, running_mean, running_var, weight, bias,
                                        training || !options.track_running_stats(),
                                        options.momentum(), options.eps());
    return unbatched ? y.squeeze(0) : y;
  });
}

void instancenorm_pretty_print(std::ostream& stream, int64_t dims, const InstanceNormOptions& o) {
  stream << std::boolalpha << "ember::nn::InstanceNorm" << dims << "d(" << o.num_features()
         << ", eps=" << o.eps() << ", momentum=" << o.momentum() << ", affine=" << o.affine()
         << ", track_running_stats=" << o.track_running_stats() << ")";
}

}  // namespace detail

void BatchNorm1dImpl::_check_input_dim(const Tensor& input) {
  detail::norm_check_rank(input, "BatchNorm1d", 2, 3);
}
void BatchNorm2dImpl::_check_input_dim(const Tensor& input) {
  detail::norm_check_rank(input, "BatchNorm2d", 4);
}
void BatchNorm3dImpl::_check_input_dim(const Tensor& input) {
  detail::norm_check_rank(input, "BatchNorm3d", 5);
}

void InstanceNorm1dImpl::_check_input_dim(const Tensor& input) {
  detail::norm_check_rank(input, "InstanceNorm1d", 2, 3);
}
void InstanceNorm2dImpl::_check_input_dim(const Tensor& input) {
  detail::norm_check_rank(input, "InstanceNorm2d", 3, 4);
}
void InstanceNorm3dImpl::_check_input_dim(const Tensor& input) {
  detail::norm_check_rank(input, "InstanceNorm3d", 4, 5);
}

}  // namespace ember::nn
