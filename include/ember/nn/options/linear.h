// Options of the linear-family modules (Identity, Linear, Flatten, Unflatten, Bilinear), as
// LibTorch's torch/nn/options/linear.h:
//   nn::Linear fc(nn::LinearOptions(784, 10).bias(false));
// The functional forms F::linear and F::bilinear take their tensors directly and need no options.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ember/core/arg.h"

namespace ember::nn {

/// Options of Identity: none (the module accepts and ignores any constructor arguments).
struct IdentityOptions {};

/// Options of Linear: y = x·Wᵀ + b with W [out_features, in_features].
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  /// Size of each input sample (the last dim of the input).
  EMBER_ARG(int64_t, in_features);
  /// Size of each output sample.
  EMBER_ARG(int64_t, out_features);
  /// Whether the layer learns an additive bias.
  EMBER_ARG(bool, bias) = true;
};

/// Options of Flatten: flattens dims start_dim..end_dim into one (batch dim kept by default).
struct FlattenOptions {
  /// First dim to flatten.
  EMBER_ARG(int64_t, start_dim) = 1;
  /// Last dim to flatten (inclusive).
  EMBER_ARG(int64_t, end_dim) = -1;
};

/// Options of Unflatten: splits dim `dim` into `sizes`, e.g. UnflattenOptions(1, {2, 5}).
/// Named tensors do not exist in Ember, so LibTorch's dimname/namedshape forms are absent.
struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  /// The dim to unflatten.
  EMBER_ARG(int64_t, dim);
  /// Its new shape (one entry may be -1).
  EMBER_ARG(std::vector<int64_t>, sizes);
};

/// Options of Bilinear: y = x1ᵀ·A·x2 + b with A [out_features, in1_features, in2_features].
struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  /// Features of the first input (its last dim).
  EMBER_ARG(int64_t, in1_features);
  /// Features of the second input (its last dim).
  EMBER_ARG(int64_t, in2_features);
  /// Features of the output.
  EMBER_ARG(int64_t, out_features);
  /// Whether the layer learns an additive bias.
  EMBER_ARG(bool, bias) = true;
};

}  // namespace ember::nn
