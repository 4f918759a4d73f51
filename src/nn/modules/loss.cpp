// Loss modules: regression and classification losses (weights as buffers, as Python) and
// printing; the math is in src/nn/functional/loss_*.cpp. Margin, embedding and sequence losses
// are in loss_margin.cpp.
#include <ostream>

#include "ember/nn/functional/loss.h"
#include "ember/nn/modules/loss.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::named_call;

// ---- Regression ----

Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("L1Loss", [&] { return F::l1_loss(input, target, options); });
}
void L1LossImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::L1Loss()"; }

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("MSELoss", [&] { return F::mse_loss(input, target, options); });
}
void MSELossImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::MSELoss()"; }

Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("HuberLoss", [&] { return F::huber_loss(input, target, options); });
}
// LibTorch prints "torch::nn::HuberLoss" without the parentheses every other module has; the
// parentheses are kept here.
void HuberLossImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::HuberLoss()"; }

Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("SmoothL1Loss", [&] { return F::smooth_l1_loss(input, target, options); });
}
// As HuberLoss: with the parentheses LibTorch leaves out.
void SmoothL1LossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::SmoothL1Loss()";
}

Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("KLDivLoss", [&] { return F::kl_div(input, target, options); });
}
void KLDivLossImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::KLDivLoss()"; }

Tensor PoissonNLLLossImpl::forward(const Tensor& log_input, const Tensor& target) {
  return named_call("PoissonNLLLoss",
                    [&] { return F::poisson_nll_loss(log_input, target, options); });
}
void PoissonNLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PoissonNLLLoss()";
}

Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return named_call("GaussianNLLLoss",
                    [&] { return F::gaussian_nll_loss(input, target, var, options); });
}
void GaussianNLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::GaussianNLLLoss()";
}

// ---- Classification ----
// forward passes the registered buffers, not options.weight(): they are the same tensor until
// to() or load_state_dict() acts on the module, and then the buffer is the one that moved.

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options_) : options(options_) { reset(); }
void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("NLLLoss", [&] {
    return F::nll_loss(input, target, NLLLossOptions(options).weight(weight));
  });
}
void NLLLossImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::NLLLoss()"; }

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options_)
    : options(options_) {
  reset();
}
void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("CrossEntropyLoss", [&] {
    return F::cross_entropy(input, target, CrossEntropyLossOptions(options).weight(weight));
  });
}
void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CrossEntropyLoss()";
}

BCELossImpl::BCELossImpl(const BCELossOptions& options_) : options(options_) { reset(); }
void BCELossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("BCELoss", [&] {
    return F::binary_cross_entropy(input, target, BCELossOptions(options).weight(weight));
  });
}
void BCELossImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::BCELoss()"; }

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_)
    : options(options_) {
  reset();
}
void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("BCEWithLogitsLoss", [&] {
    return F::binary_cross_entropy_with_logits(
        input, target, BCEWithLogitsLossOptions(options).weight(weight).pos_weight(pos_weight));
  });
}
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::BCEWithLogitsLoss()";
}

}  // namespace ember::nn
