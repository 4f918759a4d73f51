// RNN, LSTM, GRU: weight registration as PyTorch's RNNBase, input and state checks with its
// messages, unbatched inputs; the math is ember/ops/nn_rnn.h's.
#include "ember/nn/modules/rnn.h"

#include <cmath>
#include <ostream>
#include <variant>

#include "ember/core/warning.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "ember/ops/nn_rnn.h"
#include "src/core/check.h"
#include "src/ops/nn_rnn_packed.h"

namespace ember::nn {
namespace detail {
namespace {

/// The layer's batched (3-D) input and whether it was unbatched; Python's messages.
std::pair<Tensor, bool> batched_input(const char* name, const Tensor& input, bool batch_first) {
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3,
                    "{}: Expected input to be 2-D or 3-D but received {}-D tensor", name,
                    input.dim());
  if (input.dim() == 3) return {input, false};
  return {input.unsqueeze(batch_first ? 0 : 1), true};
}

/// A given state made batched like the input (its rank checked against the input's).
Tensor batched_state(const char* name, const Tensor& state, bool unbatched) {
  if (unbatched) {
    EMBER_CHECK_VALUE(state.dim() == 2,
                      "{}: For unbatched 2-D input, hx should also be 2-D but got {}-D tensor",
                      name, state.dim());
    return state.unsqueeze(1);
  }
  EMBER_CHECK_VALUE(state.dim() == 3,
                    "{}: For batched 3-D input, hx should also be 3-D but got {}-D tensor", name,
                    state.dim());
  return state;
}

Tensor unbatch_output(const Tensor& output, bool unbatched, bool batch_first) {
  return unbatched ? output.squeeze(batch_first ? 0 : 1) : output;
}

int64_t gate_count(const RNNOptionsBase::rnn_options_base_mode_t& mode) {
  if (std::holds_alternative<enumtype::kLSTM>(mode)) return 4;
  if (std::holds_alternative<enumtype::kGRU>(mode)) return 3;
  return 1;
}

/// The base options of a layer's options (the fields RNN, LSTM and GRU share).
template <class Options>
RNNOptionsBase base_options(RNNOptionsBase::rnn_options_base_mode_t mode, const Options& o) {
  return RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}

/// "LSTM", "GRU", "RNN" for messages.
const char* mode_name(const RNNOptionsBase::rnn_options_base_mode_t& mode) {
  if (std::holds_alternative<enumtype::kLSTM>(mode)) return "LSTM";
  if (std::holds_alternative<enumtype::kGRU>(mode)) return "GRU";
  return "RNN";
}

}  // namespace

template <typename Derived>
RNNImplBase<Derived>::RNNImplBase(const RNNOptionsBase& options_) : options_base(options_) {
  const char* name = mode_name(options_base.mode());
  const double p = options_base.dropout();
  EMBER_CHECK_VALUE(p >= 0 && p <= 1,
                    "{}: dropout should be a number in range [0, 1] representing the probability "
                    "of an element being zeroed, got {}",
                    name, p);
  if (p > 0 && options_base.num_layers() == 1) {
    warn(std::string(name) +
         ": dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
         "expects num_layers greater than 1, but got dropout=" +
         std::to_string(p) + " and num_layers=1");
  }
  EMBER_CHECK_VALUE(options_base.num_layers() >= 1, "{}: num_layers must be >= 1, got {}", name,
                    options_base.num_layers());
  EMBER_CHECK_VALUE(options_base.input_size() >= 0 && options_base.hidden_size() > 0,
                    "{}: input_size must be >= 0 and hidden_size > 0, got {} and {}", name,
                    options_base.input_size(), options_base.hidden_size());
  EMBER_CHECK_VALUE(options_base.proj_size() >= 0,
                    "{}: proj_size should be a positive integer or zero to disable projections, "
                    "got {}",
                    name, options_base.proj_size());
  EMBER_CHECK_VALUE(options_base.proj_size() < options_base.hidden_size(),
                    "{}: proj_size has to be smaller than hidden_size, got {} and {}", name,
                    options_base.proj_size(), options_base.hidden_size());
  EMBER_CHECK_VALUE(
      options_base.proj_size() == 0 || std::holds_alternative<enumtype::kLSTM>(options_base.mode()),
      "{}: proj_size argument is only supported for LSTM, not RNN or GRU", name);
}

template <typename Derived>
int64_t RNNImplBase<Derived>::state_size() const {
  return options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
}

template <typename Derived>
void RNNImplBase<Derived>::reset() {
  const int64_t dirs = options_base.bidirectional() ? 2 : 1;
  const int64_t gates = gate_count(options_base.mode()) * options_base.hidden_size();
  const int64_t hidden = options_base.hidden_size();
  const int64_t proj = options_base.proj_size();
  flat_weights_names_.clear();
  flat_weights_.clear();
  for (int64_t layer = 0; layer < options_base.num_layers(); ++layer) {
    const int64_t layer_input = layer == 0 ? options_base.input_size() : state_size() * dirs;
    for (int64_t dir = 0; dir < dirs; ++dir) {
      const std::string suffix = "_l" + std::to_string(layer) + (dir == 1 ? "_reverse" : "");
      auto add = [&](const std::string& name, std::vector<int64_t> sizes) {
        flat_weights_names_.push_back(name + suffix);
        flat_weights_.push_back(this->register_parameter(name + suffix, ember::empty(sizes)));
      };
      add("weight_ih", {gates, layer_input});
      add("weight_hh", {gates, state_size()});
      if (options_base.bias()) {
        add("bias_ih", {gates});
        add("bias_hh", {gates});
      }
      if (proj > 0) add("weight_hr", {proj, hidden});
    }
  }
  reset_parameters();
}

template <typename Derived>
void RNNImplBase<Derived>::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (Tensor& w : flat_weights_) init::uniform_(w, -stdv, stdv);
}

template <typename Derived>
void RNNImplBase<Derived>::flatten_parameters() {}

template <typename Derived>
std::vector<Tensor> RNNImplBase<Derived>::all_weights() const {
  return flat_weights_;
}

template <typename Derived>
void RNNImplBase<Derived>::pretty_print(std::ostream& stream) const {
  const std::string name = mode_name(options_base.mode());
  stream << std::boolalpha << "ember::nn::" << name << "(input_size=" << options_base.input_size()
         << ", hidden_size=" << options_base.hidden_size()
         << ", num_layers=" << options_base.num_layers() << ", bias=" << options_base.bias()
         << ", batch_first=" << options_base.batch_first() << ", dropout=" << options_base.dropout()
         << ", bidirectional=" << options_base.bidirectional();
  if (options_base.proj_size() > 0) stream << ", proj_size=" << options_base.proj_size();
  stream << ")";
}

template <typename Derived>
void RNNImplBase<Derived>::check_input(const Tensor& input) const {
  const char* name = mode_name(options_base.mode());
  EMBER_CHECK_VALUE(input.dim() == 3, "{}: input must have 3 dimensions, got {}", name,
                    input.dim());
  EMBER_CHECK_VALUE(input.size(-1) == options_base.input_size(),
                    "{}: input.size(-1) must be equal to input_size. Expected {}, got {}", name,
                    options_base.input_size(), input.size(-1));
  const Tensor& w = flat_weights_.front();
  EMBER_CHECK_TYPE(input.dtype() == w.dtype() && input.device() == w.device(),
                   "{}: input must have the weights' dtype and device ({}, {}), got {} on {}", name,
                   w.dtype(), w.device(), input.dtype(), input.device());
}

template <typename Derived>
std::vector<int64_t> RNNImplBase<Derived>::expected_state_size(const Tensor& input,
                                                               int64_t size) const {
  const int64_t batch = options_base.batch_first() ? input.size(0) : input.size(1);
  return {options_base.num_layers() * (options_base.bidirectional() ? 2 : 1), batch, size};
}

template <typename Derived>
void RNNImplBase<Derived>::check_state_size(const Tensor& state,
                                            const std::vector<int64_t>& expected,
                                            const char* what) const {
  EMBER_CHECK_VALUE(state.sizes() == IntArrayRef(expected), "{}: Expected {} size {}, got {}",
                    mode_name(options_base.mode()), what, IntArrayRef(expected), state.sizes());
  const Tensor& w = flat_weights_.front();
  EMBER_CHECK_TYPE(state.dtype() == w.dtype() && state.device() == w.device(),
                   "{}: {} must have the weights' dtype and device ({}, {}), got {} on {}",
                   mode_name(options_base.mode()), what, w.dtype(), w.device(), state.dtype(),
                   state.device());
}

template <typename Derived>
std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> RNNImplBase<Derived>::run_packed(
    const utils::rnn::PackedSequence& input, Tensor hx, Tensor cx) {
  const auto& mode = options_base.mode();
  const char* name = mode_name(mode);
  const Tensor& data = input.data();
  EMBER_CHECK_VALUE(data.dim() == 2, "{}: packed input data must have 2 dimensions, got {}", name,
                    data.dim());
  EMBER_CHECK_VALUE(data.size(-1) == options_base.input_size(),
                    "{}: input.size(-1) must be equal to input_size. Expected {}, got {}", name,
                    options_base.input_size(), data.size(-1));
  const Tensor sizes_cpu = input.batch_sizes().to(Device(kCPU)).to(kLong).contiguous();
  const int64_t* sp = sizes_cpu.data_ptr<int64_t>();
  const std::vector<int64_t> sizes(sp, sp + sizes_cpu.numel());
  EMBER_CHECK_VALUE(!sizes.empty(), "{}: the packed sequence has no steps", name);
  const int64_t units = options_base.num_layers() * (options_base.bidirectional() ? 2 : 1);
  const std::vector<int64_t> h_size{units, sizes.front(), state_size()};
  const std::vector<int64_t> c_size{units, sizes.front(), options_base.hidden_size()};
  const Tensor& sorted = input.sorted_indices();
  auto prepare = [&](Tensor s, const std::vector<int64_t>& size, const char* what) {
    if (!s.defined()) return zeros(size, data.options());
    check_state_size(s, size, what);
    return sorted.defined() ? s.index_select(1, sorted) : s;
  };
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(mode);
  hx = prepare(hx, h_size, lstm ? "hidden[0]" : "hidden");
  if (lstm) cx = prepare(cx, c_size, "hidden[1]");
  const ember::detail::RnnMode m =
      lstm                                                ? ember::detail::RnnMode::kLSTM
      : std::holds_alternative<enumtype::kGRU>(mode)      ? ember::detail::RnnMode::kGRU
      : std::holds_alternative<enumtype::kRNN_TANH>(mode) ? ember::detail::RnnMode::kTanh
                                                          : ember::detail::RnnMode::kRelu;
  ember::detail::PackedRnnResult r = ember::detail::rnn_packed(
      m, data, sizes, hx, cx, flat_weights_, options_base.bias(), options_base.num_layers(),
      options_base.dropout(), this->is_training(), options_base.bidirectional());
  const Tensor& unsorted = input.unsorted_indices();
  auto unsort = [&](const Tensor& s) {
    return s.defined() && unsorted.defined() ? s.index_select(1, unsorted) : s;
  };
  return {utils::rnn::PackedSequence(r.data, input.batch_sizes(), sorted, unsorted), unsort(r.h),
          unsort(r.c)};
}

template <typename Derived>
std::tuple<Tensor, Tensor> RNNImplBase<Derived>::forward_one_state(const Tensor& input, Tensor hx,
                                                                   OneStateStack run) {
  const char* name = mode_name(options_base.mode());
  auto [x, unbatched] = batched_input(name, input, options_base.batch_first());
  check_input(x);
  const std::vector<int64_t> state = expected_state_size(x, state_size());
  hx = hx.defined() ? batched_state(name, hx, unbatched) : zeros(state, x.options());
  check_state_size(hx, state, "hidden");
  auto [out, h_n] = run(x, hx, flat_weights_, options_base.bias(), options_base.num_layers(),
                        options_base.dropout(), this->is_training(), options_base.bidirectional(),
                        options_base.batch_first());
  return {unbatch_output(out, unbatched, options_base.batch_first()),
          unbatched ? h_n.squeeze(1) : h_n};
}

template class RNNImplBase<RNNImpl>;
template class RNNImplBase<LSTMImpl>;
template class RNNImplBase<GRUImpl>;

}  // namespace detail

// ---- RNN ----
RNNImpl::RNNImpl(const RNNOptions& options_)
    : RNNImplBase(detail::base_options(
          std::holds_alternative<enumtype::kTanh>(options_.nonlinearity())
              ? detail::RNNOptionsBase::rnn_options_base_mode_t(enumtype::kRNN_TANH())
              : enumtype::kRNN_RELU(),
          options_)),
      options(options_) {
  reset();
}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  const bool tanh = std::holds_alternative<enumtype::kTanh>(options.nonlinearity());
  return forward_one_state(input, std::move(hx), tanh ? &ember::rnn_tanh : &ember::rnn_relu);
}

std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h, c] = run_packed(packed_input, hx, Tensor());
  return {out, h};
}

// ---- LSTM ----
LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : RNNImplBase(
          detail::base_options(enumtype::kLSTM(), options_).proj_size(options_.proj_size())),
      options(options_) {
  reset();
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  auto [x, unbatched] = detail::batched_input("LSTM", input, options.batch_first());
  check_input(x);
  const std::vector<int64_t> h_size = expected_state_size(x, state_size());
  const std::vector<int64_t> c_size = expected_state_size(x, options.hidden_size());
  Tensor h0, c0;
  if (hx_opt) {
    h0 = detail::batched_state("LSTM", std::get<0>(*hx_opt), unbatched);
    c0 = detail::batched_state("LSTM", std::get<1>(*hx_opt), unbatched);
  } else {
    h0 = zeros(h_size, x.options());
    c0 = zeros(c_size, x.options());
  }
  check_state_size(h0, h_size, "hidden[0]");
  check_state_size(c0, c_size, "hidden[1]");
  auto [out, h_n, c_n] = ember::lstm(x, {h0, c0}, flat_weights_, options.bias(),
                                     options.num_layers(), options.dropout(), this->is_training(),
                                     options.bidirectional(), options.batch_first());
  if (unbatched) {
    h_n = h_n.squeeze(1);
    c_n = c_n.squeeze(1);
  }
  return {detail::unbatch_output(out, unbatched, options.batch_first()), {h_n, c_n}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>>
LSTMImpl::forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                                    std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  auto [out, h, c] = run_packed(packed_input, hx_opt ? std::get<0>(*hx_opt) : Tensor(),
                                hx_opt ? std::get<1>(*hx_opt) : Tensor());
  return {out, {h, c}};
}

// ---- GRU ----
GRUImpl::GRUImpl(const GRUOptions& options_)
    : RNNImplBase(detail::base_options(enumtype::kGRU(), options_)), options(options_) {
  reset();
}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  return forward_one_state(input, std::move(hx), &ember::gru);
}

std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h, c] = run_packed(packed_input, hx, Tensor());
  return {out, h};
}

}  // namespace ember::nn
