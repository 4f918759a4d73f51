// RNNCell, LSTMCell, GRUCell: weights as PyTorch's RNNCellBase, Python's checks and unbatched
// inputs; the math is ember/ops/nn_rnn.h's.
#include <cmath>
#include <ostream>
#include <variant>

#include "ember/nn/init.h"
#include "ember/nn/modules/rnn.h"
#include "ember/ops/factory.h"
#include "ember/ops/nn_rnn.h"
#include "src/core/check.h"

namespace ember::nn {
namespace detail {
namespace {

/// "LSTMCell" of "ember::nn::LSTMCellImpl", for messages.
std::string short_name(const std::string& full) {
  std::string name = full.substr(full.rfind(':') + 1);
  return name.substr(0, name.size() - 4);
}

}  // namespace

template <typename Derived>
RNNCellImplBase<Derived>::RNNCellImplBase(const RNNCellOptionsBase& options_)
    : options_base(options_) {
  EMBER_CHECK_VALUE(options_base.input_size() >= 0 && options_base.hidden_size() > 0,
                    "RNNCell: input_size must be >= 0 and hidden_size > 0, got {} and {}",
                    options_base.input_size(), options_base.hidden_size());
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset() {
  const int64_t gates = options_base.num_chunks() * options_base.hidden_size();
  weight_ih = this->register_parameter("weight_ih", empty({gates, options_base.input_size()}));
  weight_hh = this->register_parameter("weight_hh", empty({gates, options_base.hidden_size()}));
  const bool bias = options_base.bias();
  bias_ih = this->register_parameter("bias_ih", bias ? empty({gates}) : Tensor(), bias);
  bias_hh = this->register_parameter("bias_hh", bias ? empty({gates}) : Tensor(), bias);
  reset_parameters();
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (Tensor* w : {&weight_ih, &weight_hh, &bias_ih, &bias_hh})
    if (w->defined()) init::uniform_(*w, -stdv, stdv);
}

template <typename Derived>
std::string RNNCellImplBase<Derived>::get_nonlinearity_str() const {
  return "";
}

template <typename Derived>
void RNNCellImplBase<Derived>::pretty_print(std::ostream& stream) const {
  const std::string name = this->name();
  stream << name.substr(0, name.size() - 4) << "(" << options_base.input_size() << ", "
         << options_base.hidden_size();
  if (!options_base.bias()) stream << ", bias=false";
  stream << get_nonlinearity_str() << ")";
}

template <typename Derived>
void RNNCellImplBase<Derived>::check_forward_input(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.size(1) == options_base.input_size(),
                    "{}: input has inconsistent input_size: got {}, expected {}",
                    short_name(this->name()), input.size(1), options_base.input_size());
  EMBER_CHECK_TYPE(input.dtype() == weight_ih.dtype() && input.device() == weight_ih.device(),
                   "{}: input must have the weights' dtype and device ({}, {}), got {} on {}",
                   short_name(this->name()), weight_ih.dtype(), weight_ih.device(), input.dtype(),
                   input.device());
}

template <typename Derived>
void RNNCellImplBase<Derived>::check_forward_hidden(const Tensor& input, const Tensor& hx,
                                                    const std::string& hidden_label) const {
  EMBER_CHECK_VALUE(input.size(0) == hx.size(0),
                    "{}: Input batch size {} doesn't match hidden{} batch size {}",
                    short_name(this->name()), input.size(0), hidden_label, hx.size(0));
  EMBER_CHECK_VALUE(hx.size(1) == options_base.hidden_size(),
                    "{}: hidden{} has inconsistent hidden_size: got {}, expected {}",
                    short_name(this->name()), hidden_label, hx.size(1), options_base.hidden_size());
}

template <typename Derived>
std::pair<Tensor, Tensor> RNNCellImplBase<Derived>::batched(const Tensor& input, const Tensor& hx,
                                                            const std::string& hidden_label) const {
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2,
                    "{}: Expected input to be 1D or 2D, got {}D instead", short_name(this->name()),
                    input.dim());
  const bool unbatched = input.dim() == 1;
  if (hx.defined())
    EMBER_CHECK_VALUE(hx.dim() == input.dim(),
                      "{}: Expected hidden{} to be {}D like the input, got {}D instead",
                      short_name(this->name()), hidden_label, input.dim(), hx.dim());
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  check_forward_input(x);
  Tensor h = hx.defined() ? (unbatched ? hx.unsqueeze(0) : hx)
                          : zeros({x.size(0), options_base.hidden_size()}, x.options());
  check_forward_hidden(x, h, hidden_label);
  return {x, h};
}

template class RNNCellImplBase<RNNCellImpl>;
template class RNNCellImplBase<LSTMCellImpl>;
template class RNNCellImplBase<GRUCellImpl>;

}  // namespace detail

// ---- RNNCell ----
RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(),
                                                 options_.bias(), 1)),
      options(options_) {
  reset();
}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, h] = batched(input, hx, "");
  const bool tanh = std::holds_alternative<enumtype::kTanh>(options.nonlinearity());
  Tensor out = tanh ? rnn_tanh_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh)
                    : rnn_relu_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh);
  return input.dim() == 1 ? out.squeeze(0) : out;
}

std::string RNNCellImpl::get_nonlinearity_str() const {
  return std::holds_alternative<enumtype::kTanh>(options.nonlinearity()) ? ""
                                                                         : ", nonlinearity=kReLU";
}

// ---- LSTMCell ----
LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(),
                                                 options_.bias(), 4)),
      options(options_) {
  reset();
}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Tensor h_in = hx_opt ? std::get<0>(*hx_opt) : Tensor();
  Tensor c_in = hx_opt ? std::get<1>(*hx_opt) : Tensor();
  auto [x, h] = batched(input, h_in, "[0]");
  Tensor c = batched(input, c_in, "[1]").second;
  auto [h1, c1] = lstm_cell(x, {h, c}, weight_ih, weight_hh, bias_ih, bias_hh);
  if (input.dim() == 1) return {h1.squeeze(0), c1.squeeze(0)};
  return {h1, c1};
}

// ---- GRUCell ----
GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(),
                                                 options_.bias(), 3)),
      options(options_) {
  reset();
}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, h] = batched(input, hx, "");
  Tensor out = gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh);
  return input.dim() == 1 ? out.squeeze(0) : out;
}

}  // namespace ember::nn
