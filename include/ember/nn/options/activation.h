// Options of the activations, as LibTorch's torch/nn/options/activation.h:
//   nn::ELU elu(nn::ELUOptions().alpha(0.5).inplace(true));                 // module options
//   F::elu(x, F::ELUFuncOptions().alpha(0.5));                              // functional options
//   F::softmax(x, F::SoftmaxFuncOptions(1).dtype(ember::kDouble));
// Most functional options are the module options under another name (ELUFuncOptions = ELUOptions);
// softmax, softmin, log_softmax and rrelu have their own functional structs, which add `dtype` or
// `training`, as in LibTorch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ember/core/arg.h"
#include "ember/core/scalar_type.h"

namespace ember::nn {

/// Options of ELU: alpha·(exp(x) - 1) for x <= 0, x above.
struct ELUOptions {
  /// The value the negative side tends to (-alpha).
  EMBER_ARG(double, alpha) = 1.0;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of SELU (its alpha and scale are fixed constants).
struct SELUOptions {
  /* implicit */ SELUOptions(bool inplace = false) : inplace_(inplace) {}
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace);
};

/// Options of CELU: alpha·(exp(x / alpha) - 1) for x <= 0, x above.
struct CELUOptions {
  /// The scale of the negative side; must not be 0.
  EMBER_ARG(double, alpha) = 1.0;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of GLU: halves the input along `dim` into (a, b) and returns a·sigmoid(b).
struct GLUOptions {
  /* implicit */ GLUOptions(int64_t dim = -1) : dim_(dim) {}
  /// The dim to halve; its size must be even.
  EMBER_ARG(int64_t, dim);
};

/// Options of GELU.
struct GELUOptions {
  /// "none" (exact, with erf) or "tanh" (the tanh approximation).
  EMBER_ARG(std::string, approximate) = "none";
};

/// Options of Hardshrink: x where |x| > lambda, else 0.
struct HardshrinkOptions {
  /* implicit */ HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}
  /// The half-width of the band set to zero.
  EMBER_ARG(double, lambda);
};

/// Options of Hardtanh: x clamped to [min_val, max_val].
struct HardtanhOptions {
  /// The lower bound.
  EMBER_ARG(double, min_val) = -1.0;
  /// The upper bound.
  EMBER_ARG(double, max_val) = 1.0;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of LeakyReLU: x for x > 0, negative_slope·x otherwise.
struct LeakyReLUOptions {
  /// The slope of the negative side.
  EMBER_ARG(double, negative_slope) = 1e-2;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of Softmax.
struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: LibTorch's implicit constructor
  /// The dim along which the outputs sum to 1.
  EMBER_ARG(int64_t, dim);
};

/// Options of Softmin (softmax of -x).
struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT: LibTorch's implicit constructor
  /// The dim along which the outputs sum to 1.
  EMBER_ARG(int64_t, dim);
};

/// Options of LogSoftmax.
struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: LibTorch's implicit constructor
  /// The dim along which exp(outputs) sum to 1.
  EMBER_ARG(int64_t, dim);
};

/// Options of PReLU (the module owns the learnable slope; F::prelu takes it as a tensor).
struct PReLUOptions {
  /// Number of slopes: 1 (shared) or the number of channels (dim 1 of the input).
  EMBER_ARG(int64_t, num_parameters) = 1;
  /// The initial value of every slope.
  EMBER_ARG(double, init) = 0.25;
};

/// Options of ReLU.
struct ReLUOptions {
  /* implicit */ ReLUOptions(bool inplace = false) : inplace_(inplace) {}
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace);
};

/// Options of ReLU6: x clamped to [0, 6].
struct ReLU6Options {
  /* implicit */ ReLU6Options(bool inplace = false) : inplace_(inplace) {}
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace);
};

/// Options of RReLU: a random negative slope in [lower, upper] while training, their mean in
/// evaluation.
struct RReLUOptions {
  /// The least negative slope.
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  /// The greatest negative slope.
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of Softplus: log(1 + exp(beta·x)) / beta, and x where beta·x > threshold.
struct SoftplusOptions {
  /// The sharpness of the curve.
  EMBER_ARG(double, beta) = 1.0;
  /// Above this value of beta·x the result is x itself (for numerical stability).
  EMBER_ARG(double, threshold) = 20.0;
};

/// Options of Softshrink: x - lambda above lambda, x + lambda below -lambda, else 0.
struct SoftshrinkOptions {
  /* implicit */ SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}
  /// The half-width of the band set to zero; must be >= 0.
  EMBER_ARG(double, lambda);
};

/// Options of Threshold: x where x > threshold, else value.
struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  /// Elements at or below it are replaced.
  EMBER_ARG(double, threshold);
  /// What they are replaced by.
  EMBER_ARG(double, value);
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

namespace functional {

/// Options of F::elu.
using ELUFuncOptions = ELUOptions;
/// Options of F::selu.
using SELUFuncOptions = SELUOptions;
/// Options of F::celu.
using CELUFuncOptions = CELUOptions;
/// Options of F::glu.
using GLUFuncOptions = GLUOptions;
/// Options of F::gelu.
using GELUFuncOptions = GELUOptions;
/// Options of F::hardshrink.
using HardshrinkFuncOptions = HardshrinkOptions;
/// Options of F::hardtanh.
using HardtanhFuncOptions = HardtanhOptions;
/// Options of F::leaky_relu.
using LeakyReLUFuncOptions = LeakyReLUOptions;
/// Options of F::relu.
using ReLUFuncOptions = ReLUOptions;
/// Options of F::relu6.
using ReLU6FuncOptions = ReLU6Options;
/// Options of F::softplus.
using SoftplusFuncOptions = SoftplusOptions;
/// Options of F::softshrink.
using SoftshrinkFuncOptions = SoftshrinkOptions;
/// Options of F::threshold.
using ThresholdFuncOptions = ThresholdOptions;

/// Options of F::softmax.
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: LibTorch's implicit constructor
  /// The dim along which the outputs sum to 1.
  EMBER_ARG(int64_t, dim);
  /// When set, the input is cast to this dtype first (and the result has it).
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

/// Options of F::softmin.
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: LibTorch's implicit constructor
  /// The dim along which the outputs sum to 1.
  EMBER_ARG(int64_t, dim);
  /// When set, -input is cast to this dtype first (and the result has it).
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

/// Options of F::log_softmax.
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: LibTorch's implicit constructor
  /// The dim along which exp(outputs) sum to 1.
  EMBER_ARG(int64_t, dim);
  /// When set, the input is cast to this dtype first (and the result has it).
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

/// Options of F::rrelu.
struct RReLUFuncOptions {
  /// The least negative slope.
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  /// The greatest negative slope.
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  /// true: a slope drawn per element from the default generator; false: (lower + upper) / 2.
  EMBER_ARG(bool, training) = false;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

}  // namespace functional
}  // namespace ember::nn
