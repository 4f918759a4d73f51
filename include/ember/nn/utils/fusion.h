// Folding an eval-mode batch norm into the convolution or linear layer before it (Python's
// torch.nn.utils.fusion): y = bn(conv(x)) becomes y = conv'(x) with
//   w' = w · γ / sqrt(var + eps)   (per output channel)   b' = (b - mean) · γ / sqrt(var + eps) + β
//
//   conv->eval(); bn->eval();
//   nn::Conv2d fused = nn::utils::fuse_conv_bn_eval(conv, bn);   // a new module; inputs untouched
#pragma once

#include <utility>

#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"

namespace ember::nn::utils {

/// The fused (weight, bias) of a convolution followed by a batch norm. An undefined conv_b counts
/// as zeros, an undefined bn_w as ones and bn_b as zeros. `transpose`: the weight is a transposed
/// convolution's ([in, out / groups, ...]: the channel scale goes on dim 1).
EMBER_API std::pair<Tensor, Tensor> fuse_conv_bn_weights(const Tensor& conv_w, const Tensor& conv_b,
                                                         const Tensor& bn_rm, const Tensor& bn_rv,
                                                         double bn_eps, const Tensor& bn_w,
                                                         const Tensor& bn_b,
                                                         bool transpose = false);
/// The same for a linear layer (weight [out, in]).
EMBER_API std::pair<Tensor, Tensor> fuse_linear_bn_weights(const Tensor& linear_w,
                                                           const Tensor& linear_b,
                                                           const Tensor& bn_rm, const Tensor& bn_rv,
                                                           double bn_eps, const Tensor& bn_w,
                                                           const Tensor& bn_b);

namespace detail {
// Checks eval mode and shapes, then sets `fused`'s weight and bias (registering a bias it lacked).
EMBER_API void fuse_into(Module& fused, Tensor& weight, Tensor& bias, const Module& layer,
                         const Module& bn, const Tensor& running_mean, const Tensor& running_var,
                         double eps, const Tensor& bn_w, const Tensor& bn_b, bool transpose,
                         bool linear, const char* op);
}  // namespace detail

/// A copy of `conv` (Conv1d/2d/3d, or ConvTranspose1d/2d/3d with transpose) with `bn`
/// (BatchNorm1d/2d/3d) folded in; both must be in eval mode and bn must track running stats.
template <class ConvHolder, class BnHolder>
ConvHolder fuse_conv_bn_eval(const ConvHolder& conv, const BnHolder& bn, bool transpose = false) {
  auto fused = std::dynamic_pointer_cast<typename ConvHolder::Impl>(conv->clone());
  detail::fuse_into(*fused, fused->weight, fused->bias, *conv, *bn, bn->running_mean,
                    bn->running_var, bn->options.eps(), bn->weight, bn->bias, transpose,
                    /*linear=*/false, "fuse_conv_bn_eval");
  fused->options.bias(true);
  return ConvHolder(fused);
}

/// A copy of `linear` with `bn` (BatchNorm1d over its outputs) folded in; both in eval mode.
template <class BnHolder>
Linear fuse_linear_bn_eval(const Linear& linear, const BnHolder& bn) {
  auto fused = std::dynamic_pointer_cast<LinearImpl>(linear->clone());
  detail::fuse_into(*fused, fused->weight, fused->bias, *linear, *bn, bn->running_mean,
                    bn->running_var, bn->options.eps(), bn->weight, bn->bias, false,
                    /*linear=*/true, "fuse_linear_bn_eval");
  fused->options.bias(true);
  return Linear(fused);
}

}  // namespace ember::nn::utils
