// Parameter initialisation, as LibTorch's torch::nn::init (semantics of Python's torch.nn.init):
//   namespace init = ember::nn::init;
//   init::kaiming_uniform_(w, std::sqrt(5.0));             // what nn::Linear does to its weight
//   init::xavier_normal_(w, init::calculate_gain(ember::kTanh));
// Every function fills its tensor in place without recording autograd history (it runs under
// NoGradGuard, so parameters that require grad may be passed) and returns it. The random ones draw
// from the default generator, so ember::manual_seed(s) makes them reproduce exactly; they accept
// float32, float64, float16 and bfloat16 tensors.
#pragma once

#include <cstdint>
#include <tuple>
#include <variant>

#include "ember/core/macros.h"
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn::init {

/// The nonlinearities calculate_gain knows (LibTorch's list plus Python's kSELU).
using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D, enumtype::kConvTranspose3D,
                 enumtype::kSigmoid, enumtype::kTanh, enumtype::kReLU, enumtype::kLeakyReLU,
                 enumtype::kSELU>;

/// Which fan kaiming_* scales by: kFanIn keeps the forward variance, kFanOut the backward one.
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

/// The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for
/// relu, sqrt(2 / (1 + param^2)) for leaky relu (param = negative slope), 3/4 for selu.
EMBER_API double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);

/// Fills `tensor` with `value`.
EMBER_API Tensor constant_(Tensor tensor, Scalar value);
/// Fills `tensor` with ones.
EMBER_API Tensor ones_(Tensor tensor);
/// Fills `tensor` with zeros.
EMBER_API Tensor zeros_(Tensor tensor);
/// Fills a 2-D `matrix` with the identity (ones on the main diagonal of a possibly wide/tall one).
EMBER_API Tensor eye_(Tensor matrix);
/// Fills a 3/4/5-D conv weight [out, in / groups, k...] with the Dirac delta: each group's first
/// min(out / groups, in) output channels copy their input channel at the kernel centre.
EMBER_API Tensor dirac_(Tensor tensor, int64_t groups = 1);

/// Uniform on [low, high).
EMBER_API Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
/// Normal with the given mean and standard deviation.
EMBER_API Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
/// Normal(mean, std) truncated to [a, b] (by the inverse CDF, so nothing is redrawn).
EMBER_API Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2,
                               double b = 2);

/// Glorot: U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)). Needs dim >= 2.
EMBER_API Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
/// Glorot: N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)). Needs dim >= 2.
EMBER_API Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
/// He: U(-bound, bound), bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a).
EMBER_API Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = ember::kFanIn,
                                  NonlinearityType nonlinearity = ember::kLeakyReLU);
/// He: N(0, std^2), std = gain / sqrt(fan), gain = calculate_gain(nonlinearity, a).
EMBER_API Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = ember::kFanIn,
                                 NonlinearityType nonlinearity = ember::kLeakyReLU);

/// A (semi-)orthogonal matrix times `gain` (Saxe et al. 2013); dims after the first are flattened,
/// so rows = size(0), cols = numel / rows, and W W^T = gain^2 I (rows <= cols) or W^T W = gain^2 I.
EMBER_API Tensor orthogonal_(Tensor tensor, double gain = 1.0);
/// A 2-D matrix with ceil(sparsity * rows) zeros in each column at random rows, the rest
/// N(0, std^2) (Martens 2010).
EMBER_API Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);

/// (fan_in, fan_out) = (size(1), size(0)) times the product of the sizes after dim 1. Needs
/// dim >= 2.
EMBER_API std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

}  // namespace ember::nn::init
