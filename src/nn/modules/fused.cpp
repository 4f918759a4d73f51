// The non-template parts of the fused modules (include/ember/nn/modules/fused.h).
#include "ember/nn/modules/fused.h"

#include <string>

#include "ember/nn/functional/linear.h"
#include "ember/ops/elementwise.h"
#include "src/autograd/record.h"
#include "src/core/check.h"

namespace ember::nn::intrinsic {

Tensor detail::relu_fresh(Tensor y) {
  return autograd::needs_grad(y) ? ember::relu(y) : ember::relu_(y);
}

Tensor detail::linear_relu(const LinearImpl& linear, const Tensor& input) {
  return relu_fresh(functional::linear(input, linear.weight, linear.bias));
}

std::shared_ptr<Module> detail::fused_part(const Module& fused, size_t index) {
  const auto children = fused.named_children();
  EMBER_CHECK_INDEX(index < children.size(), "{}: index {} out of range for {} parts", fused.name(),
                    index, children.size());
  return children[std::to_string(index)];
}

LinearReLUImpl::LinearReLUImpl(Linear linear_, ReLU relu_)
    : linear(register_module("0", std::move(linear_))),
      relu(register_module("1", std::move(relu_))) {}
Tensor LinearReLUImpl::forward(const Tensor& input) { return detail::linear_relu(*linear, input); }

LinearBn1dImpl::LinearBn1dImpl(Linear linear_, BatchNorm1d bn_)
    : linear(register_module("0", std::move(linear_))), bn(register_module("1", std::move(bn_))) {}
Tensor LinearBn1dImpl::forward(const Tensor& input) {
  return bn->unfused_forward(functional::linear(input, linear->weight, linear->bias));
}

}  // namespace ember::nn::intrinsic
