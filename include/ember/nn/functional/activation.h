// The activations as functions (LibTorch's torch::nn::functional, Python's torch.nn.functional):
//   namespace F = ember::nn::functional;
//   Tensor y = F::elu(x, F::ELUFuncOptions().alpha(0.5));
//   Tensor p = F::softmax(logits, F::SoftmaxFuncOptions(-1).dtype(ember::kDouble));
//   F::relu(x, F::ReLUFuncOptions(/*inplace=*/true));                    // writes into x
// All are differentiable and elementwise unless noted; gradients at the kinks are PyTorch's
// (relu'(0) = 0, hardtanh' = 0 at its bounds, leaky_relu'(0) = negative_slope, ...). `inplace`
// writes the result into the input and returns it, with autograd recorded as for any in-place op.
// Float-only activations reject integer inputs with a TypeError, as PyTorch does; relu, relu6,
// hardtanh and threshold keep integer dtypes, and sigmoid, tanh and softsign promote them.
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/activation.h"

namespace ember::nn::functional {

/// max(x, 0).
EMBER_API Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {});
/// min(max(x, 0), 6); gradient 0 at 0 and 6.
EMBER_API Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {});
/// x for x > 0, negative_slope·x otherwise (gradient negative_slope at 0).
EMBER_API Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {});
/// x for x > 0, weight·x otherwise; weight has 1 element or one per channel (dim 1 of input).
EMBER_API Tensor prelu(const Tensor& input, const Tensor& weight);
/// leaky_relu whose slope is drawn per element uniformly from [lower, upper] (default generator)
/// when training, and is (lower + upper) / 2 otherwise.
EMBER_API Tensor rrelu(const Tensor& input, const RReLUFuncOptions& options = {});
/// x for x > 0, alpha·(exp(x) - 1) otherwise.
EMBER_API Tensor elu(const Tensor& input, const ELUFuncOptions& options = {});
/// scale·elu(x, alpha) with PyTorch's constants alpha ≈ 1.6733, scale ≈ 1.0507.
EMBER_API Tensor selu(const Tensor& input, const SELUFuncOptions& options = {});
/// x for x > 0, alpha·(exp(x / alpha) - 1) otherwise; alpha must not be 0.
EMBER_API Tensor celu(const Tensor& input, const CELUFuncOptions& options = {});
/// x·Φ(x) ("none") or its tanh approximation ("tanh").
EMBER_API Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
/// x·sigmoid(x).
EMBER_API Tensor silu(const Tensor& input, bool inplace = false);
/// x·tanh(softplus(x)).
EMBER_API Tensor mish(const Tensor& input, bool inplace = false);
/// 1 / (1 + exp(-x)).
EMBER_API Tensor sigmoid(const Tensor& input);
/// tanh(x).
EMBER_API Tensor tanh(const Tensor& input);
/// x clamped to [min_val, max_val]; gradient 0 at the bounds.
EMBER_API Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {});
/// min(max(x + 3, 0), 6) / 6.
EMBER_API Tensor hardsigmoid(const Tensor& input, bool inplace = false);
/// x·min(max(x + 3, 0), 6) / 6.
EMBER_API Tensor hardswish(const Tensor& input, bool inplace = false);
/// log(1 + exp(beta·x)) / beta, and x itself where beta·x > threshold.
EMBER_API Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
/// x - lambda above lambda, x + lambda below -lambda, 0 between (lambda >= 0).
EMBER_API Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
/// x where |x| > lambda, 0 elsewhere.
EMBER_API Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
/// x - tanh(x).
EMBER_API Tensor tanhshrink(const Tensor& input);
/// x where x > threshold, value elsewhere.
EMBER_API Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options);
/// log(sigmoid(x)), computed stably as min(x, 0) - log1p(exp(-|x|)).
EMBER_API Tensor logsigmoid(const Tensor& input);
/// x / (1 + |x|).
EMBER_API Tensor softsign(const Tensor& input);
/// exp(x) / sum(exp(x)) along options.dim(), in options.dtype() when given.
EMBER_API Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
/// log(softmax(x)) along options.dim(), in options.dtype() when given.
EMBER_API Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
/// softmax(-x) along options.dim(), in options.dtype() when given.
EMBER_API Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
/// a·sigmoid(b) where (a, b) are the halves of input along options.dim() (its size must be even).
EMBER_API Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});

}  // namespace ember::nn::functional
