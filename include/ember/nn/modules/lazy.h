// Lazy modules (Python's torch.nn.LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*,
// LazyInstanceNorm*): the input size (in_features, in_channels, num_features) is read from the
// first input, and the parameters are created and initialised then, drawing the same random
// numbers as PyTorch's module at that point. After that the module is the ordinary one (each lazy
// class derives from it). Loading a state_dict into an uninitialised one takes the shapes from
// the state_dict, as Python's does.
//
//   nn::LazyLinear lin(10);               // in_features unknown
//   lin->has_uninitialized_params();      // true; parameters() is empty
//   Tensor y = lin(ember::randn({4, 7}));  // now a Linear(7, 10)
//
// Build optimizers after the first call (Python requires the same: uninitialised parameters
// cannot be optimised). The lazy convolutions take their ordinary options with in_channels
// ignored: nn::LazyConv2d(nn::Conv2dOptions(0, 16, 3).stride(2)).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/instancenorm.h"
#include "ember/nn/modules/linear.h"

namespace ember::nn {

namespace detail {
/// Removes entries from a module's registries (a lazy module re-creates them at its size).
EMBER_API void lazy_unregister(Module& module, const std::vector<std::string>& parameters,
                               const std::vector<std::string>& buffers);
/// Runs `create` without moving the default generator (loading a state_dict materialises empty
/// tensors in Python: it draws nothing).
EMBER_API void without_drawing(const std::function<void()>& create);
/// The first dim of state_dict[prefix + name] when present and defined, else -1 (index `dim`).
EMBER_API int64_t lazy_size_from(const StateDict& state_dict, const std::string& key, int64_t dim);
}  // namespace detail

/// Linear with in_features read from the input's last dim at the first call.
class EMBER_API LazyLinearImpl : public LinearImpl {
 public:
  explicit LazyLinearImpl(int64_t out_features, bool bias = true);
  bool has_uninitialized_params() const noexcept { return uninitialized_; }
  /// Creates and initialises weight [out, in] and bias from input.size(-1) (no-op once done).
  void initialize_parameters(const Tensor& input);
  Tensor forward(const Tensor& input);

 private:
  void materialize(int64_t in_features);
  bool uninitialized_ = true;
};
EMBER_MODULE(LazyLinear);

/// What the lazy convolutions share: in_channels read from the input at the first call (dim 1,
/// or dim 0 for an unbatched input).
template <size_t D, class ConvImpl, class Options>
class LazyConvBase : public ConvImpl {
 public:
  explicit LazyConvBase(Options options_) : ConvImpl(uninitialized_options(options_)) {
    this->options.out_channels(options_.out_channels()).bias(options_.bias());
    // Nothing to optimise or save until the shapes are known (Python's UninitializedParameter).
    detail::lazy_unregister(*this, {"weight", "bias"}, {});
    this->weight = Tensor();
    this->bias = Tensor();
    this->register_load_state_dict_pre_hook(
        [](Module& self, StateDict& sd, const std::string& prefix, bool, std::vector<std::string>&,
           std::vector<std::string>&, std::vector<std::string>&) {
          auto& me = static_cast<LazyConvBase&>(self);
          if (!me.uninitialized_) return;
          const bool transposed = me.options.transposed();
          int64_t in = detail::lazy_size_from(sd, prefix + "weight", transposed ? 0 : 1);
          if (in < 0) return;
          if (!transposed) in *= me.options.groups();
          detail::without_drawing([&] { me.materialize(in); });
        });
  }
  bool has_uninitialized_params() const noexcept { return uninitialized_; }
  /// Creates and initialises weight and bias for the input's channels (no-op once done).
  void initialize_parameters(const Tensor& input) {
    if (!uninitialized_) return;
    const bool batched = input.dim() == static_cast<int64_t>(D) + 2;
    materialize(input.size(batched ? 1 : 0));
  }

 private:
  static Options uninitialized_options(Options o) {
    return o.in_channels(0).out_channels(0).bias(false);
  }
  void materialize(int64_t in_channels) {
    NoGradGuard no_grad;
    detail::lazy_unregister(*this, {"weight", "bias"}, {});
    this->options.in_channels(in_channels);
    this->reset();
    uninitialized_ = false;
  }
  bool uninitialized_ = true;
};

template <size_t D, class ConvImpl, class Options>
class LazyConvImpl : public LazyConvBase<D, ConvImpl, Options> {
 public:
  using LazyConvBase<D, ConvImpl, Options>::LazyConvBase;
  Tensor forward(const Tensor& input) {
    this->initialize_parameters(input);
    return ConvImpl::forward(input);
  }
};

template <size_t D, class ConvImpl, class Options>
class LazyConvTransposeImpl : public LazyConvBase<D, ConvImpl, Options> {
 public:
  using LazyConvBase<D, ConvImpl, Options>::LazyConvBase;
  Tensor forward(const Tensor& input,
                 const std::optional<IntArrayRef>& output_size = std::nullopt) {
    this->initialize_parameters(input);
    return ConvImpl::forward(input, output_size);
  }
  /// The boxed call a Sequential or AnyModule makes (output_size optional).
  IValue forward_ivalues(std::vector<IValue> inputs) {
    if (!inputs.empty() && inputs[0].isTensor()) this->initialize_parameters(inputs[0].toTensor());
    return ConvImpl::forward_ivalues(std::move(inputs));
  }
};

using LazyConv1dImpl = LazyConvImpl<1, Conv1dImpl, Conv1dOptions>;
using LazyConv2dImpl = LazyConvImpl<2, Conv2dImpl, Conv2dOptions>;
using LazyConv3dImpl = LazyConvImpl<3, Conv3dImpl, Conv3dOptions>;
using LazyConvTranspose1dImpl =
    LazyConvTransposeImpl<1, ConvTranspose1dImpl, ConvTranspose1dOptions>;
using LazyConvTranspose2dImpl =
    LazyConvTransposeImpl<2, ConvTranspose2dImpl, ConvTranspose2dOptions>;
using LazyConvTranspose3dImpl =
    LazyConvTransposeImpl<3, ConvTranspose3dImpl, ConvTranspose3dOptions>;
EMBER_MODULE(LazyConv1d);
EMBER_MODULE(LazyConv2d);
EMBER_MODULE(LazyConv3d);
EMBER_MODULE(LazyConvTranspose1d);
EMBER_MODULE(LazyConvTranspose2d);
EMBER_MODULE(LazyConvTranspose3d);

/// A batch or instance norm with num_features read from the input's dim 1 at the first call (as
/// Python's _LazyNormBase). Without affine and running statistics nothing is lazy. The default
/// options are Python's: affine and track_running_stats, for the instance norms too (where
/// InstanceNorm*d defaults to neither).
template <class NormImpl, class Options>
class LazyNormImpl : public NormImpl {
 public:
  explicit LazyNormImpl(Options options_ = Options(0).affine(true).track_running_stats(true))
      : NormImpl(Options(options_).num_features(0)),
        uninitialized_(options_.affine() || options_.track_running_stats()) {
    if (uninitialized_) {
      detail::lazy_unregister(*this, {"weight", "bias"},
                              {"running_mean", "running_var", "num_batches_tracked"});
      this->weight = this->bias = this->running_mean = this->running_var =
          this->num_batches_tracked = Tensor();
    }
    this->register_load_state_dict_pre_hook(
        [](Module& self, StateDict& sd, const std::string& prefix, bool, std::vector<std::string>&,
           std::vector<std::string>&, std::vector<std::string>&) {
          auto& me = static_cast<LazyNormImpl&>(self);
          if (!me.uninitialized_) return;
          int64_t n = detail::lazy_size_from(sd, prefix + "weight", 0);
          if (n < 0) n = detail::lazy_size_from(sd, prefix + "running_mean", 0);
          if (n < 0) return;
          detail::without_drawing([&] { me.materialize(n); });
        });
  }
  bool has_uninitialized_params() const noexcept { return uninitialized_; }
  void initialize_parameters(const Tensor& input) {
    if (!uninitialized_) return;
    materialize(input.size(1));
  }
  Tensor forward(const Tensor& input) {
    initialize_parameters(input);
    return NormImpl::forward(input);
  }

 private:
  void materialize(int64_t num_features) {
    NoGradGuard no_grad;
    detail::lazy_unregister(*this, {"weight", "bias"},
                            {"running_mean", "running_var", "num_batches_tracked"});
    this->options.num_features(num_features);
    this->reset();
    uninitialized_ = false;
  }
  bool uninitialized_;
};

using LazyBatchNorm1dImpl = LazyNormImpl<BatchNorm1dImpl, BatchNormOptions>;
using LazyBatchNorm2dImpl = LazyNormImpl<BatchNorm2dImpl, BatchNormOptions>;
using LazyBatchNorm3dImpl = LazyNormImpl<BatchNorm3dImpl, BatchNormOptions>;
using LazyInstanceNorm1dImpl = LazyNormImpl<InstanceNorm1dImpl, InstanceNormOptions>;
using LazyInstanceNorm2dImpl = LazyNormImpl<InstanceNorm2dImpl, InstanceNormOptions>;
using LazyInstanceNorm3dImpl = LazyNormImpl<InstanceNorm3dImpl, InstanceNormOptions>;
EMBER_MODULE(LazyBatchNorm1d);
EMBER_MODULE(LazyBatchNorm2d);
EMBER_MODULE(LazyBatchNorm3d);
EMBER_MODULE(LazyInstanceNorm1d);
EMBER_MODULE(LazyInstanceNorm2d);
EMBER_MODULE(LazyInstanceNorm3d);

}  // namespace ember::nn
