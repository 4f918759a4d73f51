// LibTorch's ATen-level recurrent functions, with ATen's signatures and PyTorch's math:
//   auto [h1, c1] = torch::lstm_cell(x, {h0, c0}, w_ih, w_hh, b_ih, b_hh);
//   auto [out, hn, cn] = torch::lstm(x, {h0, c0}, params, true, 2, 0.0, false, false, false);
// The modules of ember/nn/modules/rnn.h call these. The cells take a batched input [B, in] and
// state [B, H]; the sequence forms take input [T, B, in] (or [B, T, in] with batch_first) and
// state [num_layers * num_directions, B, H], and params per layer and direction in PyTorch's
// order: w_ih, w_hh, then b_ih, b_hh when has_biases, then (LSTM) w_hr when there is a
// projection (5 or 3 tensors per layer and direction instead of 4 or 2).
//
// All of it is composed of ops that autograd records, so backward through time needs nothing of
// its own. Each layer and direction does one GEMM for the input projection of every time step
// and one per step for the recurrence (the gate biases folded into the projection where the math
// allows: RNN and LSTM add b_ih + b_hh once).
#pragma once

#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

/// h' = tanh(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh).
EMBER_API Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                               const Tensor& w_hh, const std::optional<Tensor>& b_ih = {},
                               const std::optional<Tensor>& b_hh = {});
/// h' = relu(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh).
EMBER_API Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                               const Tensor& w_hh, const std::optional<Tensor>& b_ih = {},
                               const std::optional<Tensor>& b_hh = {});
/// One LSTM step; hx is {h, c}. Returns (h', c').
EMBER_API std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, TensorList hx,
                                               const Tensor& w_ih, const Tensor& w_hh,
                                               const std::optional<Tensor>& b_ih = {},
                                               const std::optional<Tensor>& b_hh = {});
/// One GRU step: h' = n + z·(h - n) with r, z, n as PyTorch's GRUCell.
EMBER_API Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                          const Tensor& w_hh, const std::optional<Tensor>& b_ih = {},
                          const std::optional<Tensor>& b_hh = {});

/// A stack of LSTM layers; hx is {h0, c0}. Returns (output, h_n, c_n).
EMBER_API std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx,
                                                  TensorList params, bool has_biases,
                                                  int64_t num_layers, double dropout, bool train,
                                                  bool bidirectional, bool batch_first);
/// A stack of GRU layers. Returns (output, h_n).
EMBER_API std::tuple<Tensor, Tensor> gru(const Tensor& input, const Tensor& hx, TensorList params,
                                         bool has_biases, int64_t num_layers, double dropout,
                                         bool train, bool bidirectional, bool batch_first);
/// A stack of tanh RNN layers. Returns (output, h_n).
EMBER_API std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& input, const Tensor& hx,
                                              TensorList params, bool has_biases,
                                              int64_t num_layers, double dropout, bool train,
                                              bool bidirectional, bool batch_first);
/// A stack of ReLU RNN layers. Returns (output, h_n).
EMBER_API std::tuple<Tensor, Tensor> rnn_relu(const Tensor& input, const Tensor& hx,
                                              TensorList params, bool has_biases,
                                              int64_t num_layers, double dropout, bool train,
                                              bool bidirectional, bool batch_first);

}  // namespace ember
