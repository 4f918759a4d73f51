// Recurrent layers and cells (LibTorch's torch/nn/modules/rnn.h), with PyTorch's parameter names
// and shapes (weight_ih_l0, weight_hh_l0_reverse, bias_ih_l1, weight_hr_l0, ...), so state_dicts
// move both ways with Python, and PyTorch's initialisation (every weight and bias uniform in
// ±1/sqrt(hidden_size)):
//
//   nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).batch_first(true));
//   auto [out, state] = lstm->forward(x);               // x [B, T, 10] -> out [B, T, 20]
//   auto [h_n, c_n] = state;                            // [2, B, 20] each
//   nn::GRUCell cell(10, 20);
//   Tensor h = cell(x_t, h);                            // one step
//
// Unbatched inputs (a layer's [T, in], a cell's [in]) work as in Python, with unbatched states.
// The math is ember/ops/nn_rnn.h's.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/options/rnn.h"
#include "ember/nn/pimpl.h"
#include "ember/nn/utils/rnn.h"

namespace ember::nn {
namespace detail {

/// What RNN, LSTM and GRU share: the weights of every layer and direction, their checks.
template <typename Derived>
class EMBER_API RNNImplBase : public Cloneable<Derived> {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_);
  /// Registers the weights (in PyTorch's order: per layer and direction weight_ih, weight_hh,
  /// bias_ih, bias_hh, weight_hr) and draws them.
  void reset() override;
  /// Re-draws every weight uniform in ±1/sqrt(hidden_size).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// Kept for LibTorch programs: the weights are always used where they are, so it does nothing.
  void flatten_parameters();
  /// The weights, in registration order.
  std::vector<Tensor> all_weights() const;

  RNNOptionsBase options_base;

 protected:
  /// Checks input's rank, feature size and dtype, as Python's RNNBase.check_input.
  void check_input(const Tensor& input) const;
  /// [num_layers * num_directions, batch, size] for `input` (batched, 3-D).
  std::vector<int64_t> expected_state_size(const Tensor& input, int64_t size) const;
  /// Checks a given initial state's size ("Expected hidden size [...], got [...]").
  void check_state_size(const Tensor& state, const std::vector<int64_t>& expected,
                        const char* what) const;
  /// The size of the hidden state: proj_size when set, else hidden_size.
  int64_t state_size() const;
  /// RNN's and GRU's forward: `run` is ember::rnn_tanh, rnn_relu or gru.
  using OneStateStack = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&, TensorList,
                                                       bool, int64_t, double, bool, bool, bool);
  std::tuple<Tensor, Tensor> forward_one_state(const Tensor& input, Tensor hx, OneStateStack run);
  /// The stack over a packed sequence from (hx, cx) given in the input's order (undefined:
  /// zeros): (packed output, h_n, c_n) with the states back in the input's order.
  std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> run_packed(
      const utils::rnn::PackedSequence& input, Tensor hx, Tensor cx);

  std::vector<std::string> flat_weights_names_;
  std::vector<Tensor> flat_weights_;
};

}  // namespace detail

/// A stack of Elman RNN layers (tanh or ReLU).
class EMBER_API RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options_);
  /// input [T, B, in] ([B, T, in] with batch_first, or unbatched [T, in]) and an optional
  /// initial state [layers * directions, B, H] -> (output [T, B, directions * H], h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  /// The same over a packed sequence; h_n holds each sequence's state at its own last step.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  RNNOptions options;
};
EMBER_MODULE(RNN);

/// A stack of LSTM layers, with an optional projection of the hidden state (proj_size).
class EMBER_API LSTMImpl : public detail::RNNImplBase<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options_);
  /// input as RNN's and an optional (h_0, c_0) -> (output, (h_n, c_n)); h is [layers *
  /// directions, B, proj_size or hidden_size], c [layers * directions, B, hidden_size].
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  /// The same over a packed sequence.
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input,
      std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMOptions options;
};
EMBER_MODULE(LSTM);

/// A stack of GRU layers.
class EMBER_API GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options_);
  /// As RNN's forward.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  /// The same over a packed sequence.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  GRUOptions options;
};
EMBER_MODULE(GRU);

namespace detail {

/// What RNNCell, LSTMCell and GRUCell share: weight_ih [gates * H, in], weight_hh [gates * H, H],
/// bias_ih and bias_hh [gates * H] (undefined without bias).
template <typename Derived>
class EMBER_API RNNCellImplBase : public Cloneable<Derived> {
 public:
  explicit RNNCellImplBase(const RNNCellOptionsBase& options_);
  void reset() override;
  /// Re-draws every weight uniform in ±1/sqrt(hidden_size).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  RNNCellOptionsBase options_base;
  Tensor weight_ih;
  Tensor weight_hh;
  Tensor bias_ih;
  Tensor bias_hh;

 protected:
  /// Checks the input's rank and feature size (Python's RNNCellBase messages).
  void check_forward_input(const Tensor& input) const;
  /// A given state's batch and feature sizes against the input's (batched, 2-D).
  void check_forward_hidden(const Tensor& input, const Tensor& hx,
                            const std::string& hidden_label) const;
  /// ", nonlinearity=kReLU" for RNNCell when not tanh; empty for the others.
  virtual std::string get_nonlinearity_str() const;
  /// The batched input and state (unsqueezed when the input is 1-D); a missing state is zeros.
  std::pair<Tensor, Tensor> batched(const Tensor& input, const Tensor& hx,
                                    const std::string& hidden_label) const;
};

}  // namespace detail

/// One step of RNN: h' = tanh (or relu) of (W_ih·x + b_ih + W_hh·h + b_hh).
class EMBER_API RNNCellImpl : public detail::RNNCellImplBase<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options_);
  /// input [B, in] or [in], hx [B, H] or [H] (zeros when absent) -> h'.
  Tensor forward(const Tensor& input, Tensor hx = {});

  RNNCellOptions options;

 protected:
  std::string get_nonlinearity_str() const override;
};
EMBER_MODULE(RNNCell);

/// One step of LSTM.
class EMBER_API LSTMCellImpl : public detail::RNNCellImplBase<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options_);
  /// input [B, in] or [in], (h, c) as the input is batched or not (zeros when absent) ->
  /// (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

/// One step of GRU.
class EMBER_API GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options_);
  /// As RNNCell's forward.
  Tensor forward(const Tensor& input, Tensor hx = {});

  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
