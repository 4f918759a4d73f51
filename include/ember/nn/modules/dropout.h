// Dropout modules (LibTorch's torch/nn/modules/dropout.h): each keeps its options and drops only
// while the module is training (is_training()); in eval mode forward returns its input.
//
//   nn::Sequential mlp(nn::Linear(4, 8), nn::ReLU(), nn::Dropout(0.2), nn::Linear(8, 2));
//   mlp->eval();   // the Dropout is now the identity
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/options/dropout.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// Zeroes each element with probability p while training and scales the rest by 1 / (1 - p).
class EMBER_API DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options_ = {});
  void reset() override;
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  DropoutOptions options;
};
EMBER_MODULE(Dropout);

/// Zeroes whole channels of [N, C, L] or [C, L] inputs while training.
class EMBER_API Dropout1dImpl : public Cloneable<Dropout1dImpl> {
 public:
  explicit Dropout1dImpl(const Dropout1dOptions& options_ = {});
  void reset() override;
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  Dropout1dOptions options;
};
EMBER_MODULE(Dropout1d);

/// Zeroes whole channels of [N, C, H, W] or [C, H, W] inputs while training.
class EMBER_API Dropout2dImpl : public Cloneable<Dropout2dImpl> {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options_ = {});
  void reset() override;
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  Dropout2dOptions options;
};
EMBER_MODULE(Dropout2d);

/// Zeroes whole channels of [N, C, D, H, W] or [C, D, H, W] inputs while training.
class EMBER_API Dropout3dImpl : public Cloneable<Dropout3dImpl> {
 public:
  explicit Dropout3dImpl(const Dropout3dOptions& options_ = {});
  void reset() override;
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  Dropout3dOptions options;
};
EMBER_MODULE(Dropout3d);

/// Alpha dropout for SELU networks (keeps zero mean and unit variance); never in place, as
/// PyTorch (options.inplace() is kept for printing only).
class EMBER_API AlphaDropoutImpl : public Cloneable<AlphaDropoutImpl> {
 public:
  explicit AlphaDropoutImpl(const AlphaDropoutOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AlphaDropoutOptions options;
};
EMBER_MODULE(AlphaDropout);

/// Alpha dropout of whole channels of [N, C, *] inputs; never in place, as PyTorch.
class EMBER_API FeatureAlphaDropoutImpl : public Cloneable<FeatureAlphaDropoutImpl> {
 public:
  explicit FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options_ = {});
  void reset() override;
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FeatureAlphaDropoutOptions options;
};
EMBER_MODULE(FeatureAlphaDropout);

}  // namespace ember::nn
