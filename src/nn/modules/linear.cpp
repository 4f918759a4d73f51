// Identity, Linear, Flatten, Unflatten, Bilinear.
#include "ember/nn/modules/linear.h"

#include <cmath>
#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"

namespace ember::nn {

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Identity()"; }

// ---- Linear ----
LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) { reset(); }

void LinearImpl::reset() {
  EMBER_CHECK_VALUE(options.in_features() >= 0 && options.out_features() >= 0,
                    "Linear: in_features and out_features must be >= 0, got {} and {}",
                    options.in_features(), options.out_features());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            /*requires_grad=*/options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  // kaiming_uniform_(a = sqrt(5)) gives bound sqrt(6 / ((1 + 5) fan_in)) = 1/sqrt(fan_in).
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto fans = init::_calculate_fan_in_and_fan_out(weight);
    const int64_t fan_in = std::get<0>(fans);
    double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) {
  if (EMBER_UNLIKELY(_fused_forward.active())) return _fused_forward(*this, input);
  return functional::linear(input, weight, bias);
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

// ---- Flatten / Unflatten ----
Tensor FlattenImpl::forward(const Tensor& input) {
  return input.flatten(options.start_dim(), options.end_dim());
}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Flatten(start_dim=" << options.start_dim()
         << ", end_dim=" << options.end_dim() << ")";
}

Tensor UnflattenImpl::forward(const Tensor& input) {
  return input.unflatten(options.dim(), options.sizes());
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i)
    stream << (i ? ", " : "") << options.sizes()[i];
  stream << "})";
}

// ---- Bilinear ----
BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) { reset(); }

void BilinearImpl::reset() {
  weight = register_parameter(
      "weight", empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  // PyTorch: both uniform in ±1/sqrt(in1_features).
  double bound = 1.0 / std::sqrt(static_cast<double>(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

}  // namespace ember::nn
