// Instance normalisation modules (LibTorch's torch/nn/modules/instancenorm.h): each (sample,
// channel) normalised over its spatial dims; no affine parameters and no running statistics
// unless the options ask for them.
//
//   nn::InstanceNorm2d in(nn::InstanceNorm2dOptions(16).affine(true));
//   Tensor y = in(x);   // x [N, 16, H, W], or unbatched [16, H, W]
#pragma once

#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/options/instancenorm.h"

namespace ember::nn {

namespace detail {
/// The InstanceNorm modules' forward (unbatched inputs of rank D + 1 get a batch dim of 1).
EMBER_API Tensor instancenorm_module_forward(const char* module, int64_t dims, const Tensor& input,
                                             const InstanceNormOptions& options, bool training,
                                             const Tensor& weight, const Tensor& bias,
                                             const Tensor& running_mean, const Tensor& running_var);
/// "ember::nn::InstanceNorm2d(16, eps=1e-05, momentum=0.1, affine=false,
/// track_running_stats=false)".
EMBER_API void instancenorm_pretty_print(std::ostream& stream, int64_t dims,
                                         const InstanceNormOptions& options);
}  // namespace detail

/// The InstanceNorm modules' forward and printing (LibTorch's InstanceNormImpl).
template <size_t D, typename Derived>
class InstanceNormImpl : public NormImplBase<D, Derived, InstanceNormOptions> {
 public:
  explicit InstanceNormImpl(const InstanceNormOptions& options_)
      : NormImplBase<D, Derived, InstanceNormOptions>(options_) {
    this->reset();
  }

  /// input [N, C, *] or unbatched [C, *] -> the same shape.
  Tensor forward(const Tensor& input) {
    this->_check_input_dim(input);
    return detail::instancenorm_module_forward(module_name(), static_cast<int64_t>(D), input,
                                               this->options, this->is_training(), this->weight,
                                               this->bias, this->running_mean, this->running_var);
  }

  void pretty_print(std::ostream& stream) const override {
    detail::instancenorm_pretty_print(stream, static_cast<int64_t>(D), this->options);
  }

 private:
  static const char* module_name() {
    return D == 1 ? "InstanceNorm1d" : (D == 2 ? "InstanceNorm2d" : "InstanceNorm3d");
  }
};

/// Instance norm over [N, C, L] or unbatched [C, L] inputs.
class EMBER_API InstanceNorm1dImpl : public InstanceNormImpl<1, InstanceNorm1dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using InstanceNormImpl<1, InstanceNorm1dImpl>::InstanceNormImpl;
};
EMBER_MODULE(InstanceNorm1d);

/// Instance norm over [N, C, H, W] or unbatched [C, H, W] inputs.
class EMBER_API InstanceNorm2dImpl : public InstanceNormImpl<2, InstanceNorm2dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using InstanceNormImpl<2, InstanceNorm2dImpl>::InstanceNormImpl;
};
EMBER_MODULE(InstanceNorm2d);

/// Instance norm over [N, C, D, H, W] or unbatched [C, D, H, W] inputs.
class EMBER_API InstanceNorm3dImpl : public InstanceNormImpl<3, InstanceNorm3dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using InstanceNormImpl<3, InstanceNorm3dImpl>::InstanceNormImpl;
};
EMBER_MODULE(InstanceNorm3d);

}  // namespace ember::nn
