// Options of the recurrent layers and cells, as LibTorch's torch/nn/options/rnn.h:
//   nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).bidirectional(true).batch_first(true));
//   nn::GRUCell cell(nn::GRUCellOptions(10, 20).bias(false));
#pragma once

#include <cstdint>
#include <variant>

#include "ember/core/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn {

namespace detail {

/// What RNNImplBase needs of every recurrent layer's options: the cell kind and the sizes.
struct RNNOptionsBase {
  using rnn_options_base_mode_t =
      std::variant<enumtype::kLSTM, enumtype::kGRU, enumtype::kRNN_TANH, enumtype::kRNN_RELU>;
  RNNOptionsBase(rnn_options_base_mode_t mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  /// The cell: kLSTM, kGRU, kRNN_TANH or kRNN_RELU.
  EMBER_ARG(rnn_options_base_mode_t, mode);
  /// Features of each input step (the last dim of the input).
  EMBER_ARG(int64_t, input_size);
  /// Features of the hidden state.
  EMBER_ARG(int64_t, hidden_size);
  /// Recurrent layers stacked; each one reads the previous one's output.
  EMBER_ARG(int64_t, num_layers) = 1;
  /// Whether the layers learn bias_ih and bias_hh.
  EMBER_ARG(bool, bias) = true;
  /// Input and output as [batch, seq, feature] instead of [seq, batch, feature].
  EMBER_ARG(bool, batch_first) = false;
  /// Dropout on the output of every layer but the last (training only).
  EMBER_ARG(double, dropout) = 0.0;
  /// A second pass over the sequence backwards, its output concatenated to the forward one's.
  EMBER_ARG(bool, bidirectional) = false;
  /// LSTM only: when > 0, the hidden state is projected to this many features by weight_hr.
  EMBER_ARG(int64_t, proj_size) = 0;
};

}  // namespace detail

/// Options of RNN: a stack of Elman layers, h' = tanh(W_ih·x + b_ih + W_hh·h + b_hh).
struct RNNOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  /// kTanh or kReLU.
  EMBER_ARG(nonlinearity_t, nonlinearity) = ember::kTanh;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

/// Options of LSTM (gates i, f, g, o; with proj_size > 0 the LSTM of Sak et al., 2014).
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  EMBER_ARG(int64_t, proj_size) = 0;
};

/// Options of GRU (gates r, z, n).
struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

namespace detail {

/// What RNNCellImplBase needs of every cell's options; num_chunks is the number of gates.
struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks)
      : input_size_(input_size), hidden_size_(hidden_size), bias_(bias), num_chunks_(num_chunks) {}
  virtual ~RNNCellOptionsBase() = default;
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias);
  EMBER_ARG(int64_t, num_chunks);
};

}  // namespace detail

/// Options of RNNCell: one step of RNN.
struct RNNCellOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(nonlinearity_t, nonlinearity) = ember::kTanh;
};

/// Options of LSTMCell: one step of LSTM.
struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

/// Options of GRUCell: one step of GRU.
struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

}  // namespace ember::nn
