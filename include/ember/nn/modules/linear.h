// Linear-family modules: Identity, Linear, Flatten, Unflatten, Bilinear (LibTorch's
// torch/nn/modules/linear.h), initialised as PyTorch initialises them.
//
//   nn::Linear fc(nn::LinearOptions(784, 10).bias(false));   // or nn::Linear fc(784, 10);
//   Tensor y = fc(x);                                         // x [*, 784] -> y [*, 10]
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/fused_forward.h"
#include "ember/nn/options/linear.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// Returns its input unchanged; accepts and ignores any constructor arguments.
class EMBER_API IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  template <typename... Args>
  explicit IdentityImpl(const Args&...) {}
  Tensor forward(Tensor input) { return input; }
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Identity);

/// y = x·Wᵀ + b. weight [out, in] and bias [out] start uniform in ±1/sqrt(in) (PyTorch's
/// kaiming_uniform_(a = sqrt(5)) and its bias rule).
class EMBER_API LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset() override;
  /// Re-draws weight and bias as at construction.
  void reset_parameters();
  /// input [*, in_features] -> [*, out_features].
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  Tensor weight;
  Tensor bias;
  /// Set by nn::utils::fuse_modules when this layer was fused (nn/fused_forward.h).
  detail::FusedForward _fused_forward;
};
EMBER_MODULE(Linear);

/// Flattens dims start_dim..end_dim (default: all but the batch dim).
class EMBER_API FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FlattenOptions options;
};
EMBER_MODULE(Flatten);

/// Splits one dim into several: Unflatten(1, {2, 5}) makes [N, 10] into [N, 2, 5].
class EMBER_API UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(const UnflattenOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

/// y = x1ᵀ·A·x2 + b; weight [out, in1, in2] and bias [out] uniform in ±1/sqrt(in1).
class EMBER_API BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& stream) const override;

  BilinearOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Bilinear);

}  // namespace ember::nn
