// Folding an eval-mode batch norm into the convolution or linear layer before it (Python's
// torch.nn.utils.fusion): y = bn(conv(x)) becomes y = conv'(x) with
//   w' = w · γ / sqrt(var + eps)   (per output channel)   b' = (b - mean) · γ / sqrt(var + eps) + β
//
//   conv->eval(); bn->eval();
//   nn::Conv2d fused = nn::utils::fuse_conv_bn_eval(conv, bn);   // a new module; inputs untouched
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/fused.h"
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

/// Python's torch.ao.quantization.fuse_modules for a model in eval mode, in place: each group of
/// dotted submodule names (modules_to_fuse = {{"conv1", "bn1", "relu1"}, {"fc", "relu2"}}) is
/// replaced, as Python's table of fusions says:
///   (ConvNd, BatchNormNd)        -> ConvNd with the batch norm folded in
///   (ConvNd, BatchNormNd, ReLU)  -> intrinsic::ConvReLUNd of that folded ConvNd
///   (ConvNd, ReLU)               -> intrinsic::ConvReLUNd
///   (Linear, BatchNorm1d)        -> Linear with the batch norm folded in
///   (Linear, ReLU)               -> intrinsic::LinearReLU
///   (BatchNorm2d/3d, ReLU)       -> intrinsic::BNReLU2d/3d
///   (ConvTransposeNd, BatchNormNd) -> ConvTransposeNd with the batch norm folded in
/// The first name holds the fused module and the others nn::Identity, so state_dict keys are
/// Python's ("conv1.0.weight"); the first layer's forward pre-hooks and the last one's forward
/// hooks move to the fused module. In place rather than Python's default copy: a C++ model keeps
/// holders of its layers in members (conv1->forward(x)), and those layers are told to run the
/// fused module (the first) or to pass their input through (the others), so a model's own
/// forward runs fused as Sequential's does. Batch norms are folded into the layer object itself
/// (its weight and bias parameters are replaced: build optimizers afterwards). A group that
/// matches nothing is a NotImplementedError; a batch norm in training mode a ValueError.
EMBER_API void fuse_modules(Module& model,
                            const std::vector<std::vector<std::string>>& modules_to_fuse);
/// The same for quantization-aware training (Python's fuse_modules_qat): batch norms stay
/// separate modules, in intrinsic::ConvBnNd, ConvBnReLUNd and LinearBn1d.
EMBER_API void fuse_modules_qat(Module& model,
                                const std::vector<std::vector<std::string>>& modules_to_fuse);
template <class M>
void fuse_modules(const std::shared_ptr<M>& model,
                  const std::vector<std::vector<std::string>>& modules_to_fuse) {
  fuse_modules(*model, modules_to_fuse);
}
template <class M>
void fuse_modules(const ModuleHolder<M>& model,
                  const std::vector<std::vector<std::string>>& modules_to_fuse) {
  fuse_modules(*model.ptr(), modules_to_fuse);
}
template <class M>
void fuse_modules_qat(const std::shared_ptr<M>& model,
                      const std::vector<std::vector<std::string>>& modules_to_fuse) {
  fuse_modules_qat(*model, modules_to_fuse);
}
template <class M>
void fuse_modules_qat(const ModuleHolder<M>& model,
                      const std::vector<std::vector<std::string>>& modules_to_fuse) {
  fuse_modules_qat(*model.ptr(), modules_to_fuse);
}

}  // namespace ember::nn::utils
