// Activation modules: forward and printing (the math is in src/nn/functional/activation.cpp).
#include "ember/nn/modules/activation.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/activation.h"
#include "ember/ops/factory.h"
#include "src/core/check.h"

namespace ember::nn {
namespace F = functional;

Tensor ReLUImpl::forward(Tensor input) {
  if (EMBER_UNLIKELY(_fused_forward.active())) return _fused_forward(*this, input);
  return F::relu(input, options);
}
void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

Tensor ReLU6Impl::forward(Tensor input) { return F::relu6(input, options); }
void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}

Tensor LeakyReLUImpl::forward(Tensor input) { return F::leaky_relu(input, options); }
void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::LeakyReLU(negative_slope=" << options.negative_slope()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor RReLUImpl::forward(Tensor input) {
  return F::rrelu(input, F::RReLUFuncOptions()
                             .lower(options.lower())
                             .upper(options.upper())
                             .training(is_training())
                             .inplace(options.inplace()));
}
void RReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor ELUImpl::forward(Tensor input) { return F::elu(input, options); }
void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ELU(alpha=" << options.alpha()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor SELUImpl::forward(Tensor input) { return F::selu(input, options); }
void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

Tensor CELUImpl::forward(Tensor input) { return F::celu(input, options); }
void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CELU(alpha=" << options.alpha()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor GELUImpl::forward(Tensor input) { return F::gelu(input, options); }
void GELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::GELU(approximate=" << options.approximate() << ")";
}

Tensor HardtanhImpl::forward(Tensor input) { return F::hardtanh(input, options); }
void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor SoftplusImpl::forward(Tensor input) { return F::softplus(input, options); }
void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold()
         << ")";
}

Tensor SoftshrinkImpl::forward(Tensor input) { return F::softshrink(input, options); }
void SoftshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softshrink(" << options.lambda() << ")";
}

Tensor HardshrinkImpl::forward(Tensor input) { return F::hardshrink(input, options); }
void HardshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Hardshrink(" << options.lambda() << ")";
}

Tensor ThresholdImpl::forward(Tensor input) { return F::threshold(input, options); }
void ThresholdImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Threshold(threshold=" << options.threshold()
         << ", value=" << options.value() << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor SoftmaxImpl::forward(Tensor input) {
  return F::softmax(input, F::SoftmaxFuncOptions(options.dim()));
}
void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softmax(dim=" << options.dim() << ")";
}

Tensor LogSoftmaxImpl::forward(Tensor input) {
  return F::log_softmax(input, F::LogSoftmaxFuncOptions(options.dim()));
}
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::LogSoftmax(dim=" << options.dim() << ")";
}

Tensor SoftminImpl::forward(Tensor input) {
  return F::softmin(input, F::SoftminFuncOptions(options.dim()));
}
void SoftminImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softmin(dim=" << options.dim() << ")";
}

Tensor GLUImpl::forward(Tensor input) { return F::glu(input, options); }
void GLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::GLU(dim=" << options.dim() << ")";
}

Tensor SiLUImpl::forward(Tensor input) { return F::silu(input); }
void SiLUImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::SiLU()"; }

Tensor MishImpl::forward(Tensor input) { return F::mish(input); }
void MishImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Mish()"; }

Tensor SigmoidImpl::forward(Tensor input) { return F::sigmoid(input); }
void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Sigmoid()"; }

Tensor TanhImpl::forward(Tensor input) { return F::tanh(input); }
void TanhImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Tanh()"; }

Tensor HardsigmoidImpl::forward(Tensor input) { return F::hardsigmoid(input); }
void HardsigmoidImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Hardsigmoid()";
}

Tensor HardswishImpl::forward(Tensor input) { return F::hardswish(input); }
void HardswishImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Hardswish()"; }

Tensor TanhshrinkImpl::forward(Tensor input) { return F::tanhshrink(input); }
void TanhshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Tanhshrink()";
}

Tensor LogSigmoidImpl::forward(Tensor input) { return F::logsigmoid(input); }
void LogSigmoidImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::LogSigmoid()";
}

Tensor SoftsignImpl::forward(Tensor input) { return F::softsign(input); }
void SoftsignImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Softsign()"; }

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) { reset(); }

void PReLUImpl::reset() {
  EMBER_CHECK_VALUE(options.num_parameters() >= 1, "PReLU: num_parameters must be >= 1, got {}",
                    options.num_parameters());
  weight = register_parameter("weight", empty({options.num_parameters()}));
  reset_parameters();
}

void PReLUImpl::reset_parameters() {
  NoGradGuard no_grad;
  weight.fill_(options.init());
}

Tensor PReLUImpl::forward(const Tensor& input) { return F::prelu(input, weight); }

void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}

}  // namespace ember::nn
