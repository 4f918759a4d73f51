// Conv/linear + batch norm folding (Python's torch.nn.utils.fusion).
#include "ember/nn/utils/fusion.h"

#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ember.h"
#include "src/core/check.h"
#include "src/nn/utils/module_registry_access.h"

namespace ember::nn::utils {
namespace {

Tensor or_filled(const Tensor& t, const Tensor& like, double value) {
  return t.defined() ? t : ember::full_like(like, value);
}

}  // namespace

std::pair<Tensor, Tensor> fuse_conv_bn_weights(const Tensor& conv_w, const Tensor& conv_b,
                                               const Tensor& bn_rm, const Tensor& bn_rv,
                                               double bn_eps, const Tensor& bn_w,
                                               const Tensor& bn_b, bool transpose) {
  EMBER_CHECK_VALUE(conv_w.defined() && bn_rm.defined() && bn_rv.defined(),
                    "fuse_conv_bn_weights: the weight and the running statistics must be defined");
  EMBER_CHECK_VALUE(conv_w.dim() >= 2, "fuse_conv_bn_weights: weight has {} dims, expected >= 2",
                    conv_w.dim());
  const int64_t channel_dim = transpose ? 1 : 0;
  EMBER_CHECK_VALUE(conv_w.size(channel_dim) == bn_rm.numel(),
                    "fuse_conv_bn_weights: the weight has {} output channels (dim {}), the batch "
                    "norm {} features",
                    conv_w.size(channel_dim), channel_dim, bn_rm.numel());
  const Tensor b = or_filled(conv_b, bn_rm, 0.0);
  const Tensor gamma = or_filled(bn_w, bn_rm, 1.0);
  const Tensor beta = or_filled(bn_b, bn_rm, 0.0);
  const Tensor var_rsqrt = (bn_rv + bn_eps).rsqrt();
  std::vector<int64_t> shape(static_cast<size_t>(conv_w.dim()), 1);
  shape[static_cast<size_t>(channel_dim)] = -1;
  Tensor w = conv_w * (gamma * var_rsqrt).reshape(shape);
  Tensor fused_b = (b - bn_rm) * var_rsqrt * gamma + beta;
  return {w, fused_b};
}

std::pair<Tensor, Tensor> fuse_linear_bn_weights(const Tensor& linear_w, const Tensor& linear_b,
                                                 const Tensor& bn_rm, const Tensor& bn_rv,
                                                 double bn_eps, const Tensor& bn_w,
                                                 const Tensor& bn_b) {
  EMBER_CHECK_VALUE(linear_w.defined() && linear_w.dim() == 2 && bn_rm.defined() &&
                        bn_rv.defined() && linear_w.size(0) == bn_rm.numel(),
                    "fuse_linear_bn_weights: expected a [out, in] weight and running statistics "
                    "of out features");
  const Tensor b = or_filled(linear_b, bn_rm, 0.0);
  const Tensor gamma = or_filled(bn_w, bn_rm, 1.0);
  const Tensor beta = or_filled(bn_b, bn_rm, 0.0);
  const Tensor scale = gamma * (bn_rv + bn_eps).rsqrt();
  return {linear_w * scale.unsqueeze(-1), (b - bn_rm) * scale + beta};
}

void detail::fuse_into(Module& fused, Tensor& weight, Tensor& bias, const Module& layer,
                       const Module& bn, const Tensor& running_mean, const Tensor& running_var,
                       double eps, const Tensor& bn_w, const Tensor& bn_b, bool transpose,
                       bool linear, const char* op) {
  EMBER_CHECK_VALUE(!layer.is_training() && !bn.is_training(),
                    "{}: fusion only for eval! Call eval() on {} and {} first", op, layer.name(),
                    bn.name());
  EMBER_CHECK_VALUE(running_mean.defined() && running_var.defined(),
                    "{}: {} keeps no running statistics (track_running_stats=false)", op,
                    bn.name());
  std::pair<Tensor, Tensor> wb;
  {
    autograd::NoGradGuard no_grad;
    wb = linear ? fuse_linear_bn_weights(weight, bias, running_mean, running_var, eps, bn_w, bn_b)
                : fuse_conv_bn_weights(weight, bias, running_mean, running_var, eps, bn_w, bn_b,
                                       transpose);
  }
  // New parameters in Python's order (weight, bias); the copy's old ones are dropped.
  const bool requires_grad = weight.requires_grad();
  nn::detail::ModuleRegistryAccess::parameters(fused).erase("weight");
  nn::detail::ModuleRegistryAccess::parameters(fused).erase("bias");
  weight = fused.register_parameter("weight", wb.first.detach(), requires_grad);
  bias = fused.register_parameter("bias", wb.second.detach().to(wb.first.scalar_type()),
                                  requires_grad);
}

}  // namespace ember::nn::utils
