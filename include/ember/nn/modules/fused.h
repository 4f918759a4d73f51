// Fused modules (Python's torch.ao.nn.intrinsic, float forms): a layer and what follows it as one
// module, which nn::utils::fuse_modules puts in a model's place. Each holds its parts as children
// "0", "1" (, "2"), as Python's _FusedModule (a Sequential) does, so state_dict keys match
// Python's ("conv1.0.weight").
//
//   nn::intrinsic::ConvReLU2d block(nn::Conv2d(3, 16, 3), nn::ReLU());
//   Tensor y = block(x);                    // relu(conv(x)); one oneDNN pass under NoGradGuard
//
// ConvReLU*d runs through ember::convolution_relu: with nothing to record (inference), the ReLU
// is a post-op of the convolution (no second pass over the output); under autograd, the two
// differentiable ops. LinearReLU applies the ReLU in place on the fresh linear output when nothing
// records. ConvBn*d, ConvBnReLU*d, LinearBn1d and BNReLU*d (what fuse_modules_qat makes of a model
// in training) run their parts in order, the batch norm updating its running statistics as usual.
#pragma once

#include <cstddef>
#include <memory>

#include "ember/nn/cloneable.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/pimpl.h"

namespace ember::nn::intrinsic {
namespace detail {
/// relu(y) for a fresh y: in place when nothing records, else the differentiable op.
EMBER_API Tensor relu_fresh(Tensor y);
/// What LinearReLU and BNReLU*d compute from their first part alone (fuse_modules has a member-held
/// Linear or BatchNorm compute it too).
EMBER_API Tensor linear_relu(const LinearImpl& linear, const Tensor& input);
/// Part `index` of a fused module (its child named by the index); an IndexError past the last.
EMBER_API std::shared_ptr<Module> fused_part(const Module& fused, size_t index);
template <class BatchNormImpl>
Tensor bn_relu(BatchNormImpl& bn, const Tensor& input) {
  return relu_fresh(bn.unfused_forward(input));
}
}  // namespace detail

/// What every fused module shares: its parts by position, as Python's _FusedModule (a
/// Sequential) gives them.
template <class Derived>
class FusedModule : public Cloneable<Derived> {
 public:
  /// Part `index` (children "0", "1", ...).
  std::shared_ptr<Module> operator[](size_t index) const {
    return detail::fused_part(*this, index);
  }
};

/// A convolution followed by a ReLU (ConvReLU1d/2d/3d).
template <class Conv, class Derived>
class ConvReLUNdImpl : public FusedModule<Derived> {
 public:
  ConvReLUNdImpl(Conv conv_, ReLU relu_)
      : conv(this->register_module("0", std::move(conv_))),
        relu(this->register_module("1", std::move(relu_))) {}
  Tensor forward(const Tensor& input) { return conv->_conv_relu_forward(input); }
  Conv conv;
  ReLU relu;
};

/// A convolution followed by a batch norm (ConvBn1d/2d/3d): bn(conv(x)).
template <class Conv, class BatchNorm, class Derived>
class ConvBnNdImpl : public FusedModule<Derived> {
 public:
  ConvBnNdImpl(Conv conv_, BatchNorm bn_)
      : conv(this->register_module("0", std::move(conv_))),
        bn(this->register_module("1", std::move(bn_))) {}
  Tensor forward(const Tensor& input) {
    return bn->unfused_forward(conv->_conv_forward(input, conv->weight));
  }
  Conv conv;
  BatchNorm bn;
};

/// A convolution, a batch norm and a ReLU (ConvBnReLU1d/2d/3d): relu(bn(conv(x))).
template <class Conv, class BatchNorm, class Derived>
class ConvBnReLUNdImpl : public FusedModule<Derived> {
 public:
  ConvBnReLUNdImpl(Conv conv_, BatchNorm bn_, ReLU relu_)
      : conv(this->register_module("0", std::move(conv_))),
        bn(this->register_module("1", std::move(bn_))),
        relu(this->register_module("2", std::move(relu_))) {}
  Tensor forward(const Tensor& input) {
    return detail::relu_fresh(bn->unfused_forward(conv->_conv_forward(input, conv->weight)));
  }
  Conv conv;
  BatchNorm bn;
  ReLU relu;
};

/// A batch norm followed by a ReLU (BNReLU2d/3d).
template <class BatchNorm, class Derived>
class BNReLUNdImpl : public FusedModule<Derived> {
 public:
  BNReLUNdImpl(BatchNorm bn_, ReLU relu_)
      : bn(this->register_module("0", std::move(bn_))),
        relu(this->register_module("1", std::move(relu_))) {}
  Tensor forward(const Tensor& input) { return detail::bn_relu(*bn, input); }
  BatchNorm bn;
  ReLU relu;
};

// class NameImpl : public Base<Parts..., NameImpl> with Base's constructors, and its holder.
#define EMBER_FUSED_MODULE(Name, Base, ...)                           \
  class EMBER_API Name##Impl : public Base<__VA_ARGS__, Name##Impl> { \
   public:                                                            \
    using Base<__VA_ARGS__, Name##Impl>::Base;                        \
  };                                                                  \
  EMBER_MODULE(Name)

EMBER_FUSED_MODULE(ConvReLU1d, ConvReLUNdImpl, Conv1d);
EMBER_FUSED_MODULE(ConvReLU2d, ConvReLUNdImpl, Conv2d);
EMBER_FUSED_MODULE(ConvReLU3d, ConvReLUNdImpl, Conv3d);
EMBER_FUSED_MODULE(ConvBn1d, ConvBnNdImpl, Conv1d, BatchNorm1d);
EMBER_FUSED_MODULE(ConvBn2d, ConvBnNdImpl, Conv2d, BatchNorm2d);
EMBER_FUSED_MODULE(ConvBn3d, ConvBnNdImpl, Conv3d, BatchNorm3d);
EMBER_FUSED_MODULE(ConvBnReLU1d, ConvBnReLUNdImpl, Conv1d, BatchNorm1d);
EMBER_FUSED_MODULE(ConvBnReLU2d, ConvBnReLUNdImpl, Conv2d, BatchNorm2d);
EMBER_FUSED_MODULE(ConvBnReLU3d, ConvBnReLUNdImpl, Conv3d, BatchNorm3d);
EMBER_FUSED_MODULE(BNReLU2d, BNReLUNdImpl, BatchNorm2d);
EMBER_FUSED_MODULE(BNReLU3d, BNReLUNdImpl, BatchNorm3d);
#undef EMBER_FUSED_MODULE

/// A linear layer followed by a ReLU.
class EMBER_API LinearReLUImpl : public FusedModule<LinearReLUImpl> {
 public:
  LinearReLUImpl(Linear linear_, ReLU relu_);
  Tensor forward(const Tensor& input);
  Linear linear;
  ReLU relu;
};
EMBER_MODULE(LinearReLU);

/// A linear layer followed by a BatchNorm1d over its features: bn(linear(x)).
class EMBER_API LinearBn1dImpl : public FusedModule<LinearBn1dImpl> {
 public:
  LinearBn1dImpl(Linear linear_, BatchNorm1d bn_);
  Tensor forward(const Tensor& input);
  Linear linear;
  BatchNorm1d bn;
};
EMBER_MODULE(LinearBn1d);

}  // namespace ember::nn::intrinsic
