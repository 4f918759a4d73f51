// Options of the dropout family, as LibTorch's torch/nn/options/dropout.h:
//   nn::Dropout drop(nn::DropoutOptions(0.2));                    // module: p, inplace
//   F::dropout(x, F::DropoutFuncOptions().p(0.2).training(is_training()));
// Module options carry p and inplace (the module supplies `training`); functional options add
// `training`, which defaults to true for dropout/dropout1d/2d/3d and to false for the alpha
// variants, as in LibTorch and Python.
#pragma once

#include "ember/core/arg.h"

namespace ember::nn {

/// Options of Dropout (and of Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout).
struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}
  /// Probability of zeroing an element (or a channel), in [0, 1].
  EMBER_ARG(double, p) = 0.5;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of Dropout1d (whole channels of [N, C, L] or [C, L] inputs).
using Dropout1dOptions = DropoutOptions;
/// Options of Dropout2d (whole channels of [N, C, H, W] or [C, H, W] inputs).
using Dropout2dOptions = DropoutOptions;
/// Options of Dropout3d (whole channels of [N, C, D, H, W] or [C, D, H, W] inputs).
using Dropout3dOptions = DropoutOptions;
/// Options of AlphaDropout (keeps a SELU network's self-normalisation).
using AlphaDropoutOptions = DropoutOptions;
/// Options of FeatureAlphaDropout (alpha dropout of whole channels).
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {

/// Options of F::dropout, F::dropout1d, F::dropout2d and F::dropout3d.
struct DropoutFuncOptions {
  /// Probability of zeroing an element (or a channel), in [0, 1].
  EMBER_ARG(double, p) = 0.5;
  /// Apply dropout (true) or return the input unchanged (false).
  EMBER_ARG(bool, training) = true;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of F::dropout1d.
using Dropout1dFuncOptions = DropoutFuncOptions;
/// Options of F::dropout2d.
using Dropout2dFuncOptions = DropoutFuncOptions;
/// Options of F::dropout3d.
using Dropout3dFuncOptions = DropoutFuncOptions;

/// Options of F::alpha_dropout (training defaults to false, as in LibTorch).
struct AlphaDropoutFuncOptions {
  /// Probability of dropping an element, in [0, 1].
  EMBER_ARG(double, p) = 0.5;
  /// Apply dropout (true) or return the input unchanged (false).
  EMBER_ARG(bool, training) = false;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Options of F::feature_alpha_dropout (training defaults to false, as in LibTorch).
struct FeatureAlphaDropoutFuncOptions {
  /// Probability of dropping a channel, in [0, 1].
  EMBER_ARG(double, p) = 0.5;
  /// Apply dropout (true) or return the input unchanged (false).
  EMBER_ARG(bool, training) = false;
  /// Whether to write the result into the input.
  EMBER_ARG(bool, inplace) = false;
};

}  // namespace functional
}  // namespace ember::nn
