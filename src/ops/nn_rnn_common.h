// What the recurrent paths share (nn_rnn.cpp's compositions, nn_rnn_lstm.cpp's recomputation):
// one-node splits and the LSTM cell composed of recorded ops.
#pragma once

#include <vector>

#include "ember/core/tensor.h"

namespace ember::detail {

/// x cut along dim into pieces of `sizes` (split_recorded) or into its slices, the dim dropped
/// (unbind_recorded), recorded as one node whose backward joins the pieces' gradients once, as
/// PyTorch's SplitBackward0 / UnbindBackward0: a select or narrow node per piece would each add a
/// full-size gradient. The pieces are views meant to be read, not written.
std::vector<Tensor> split_recorded(const Tensor& x, int64_t dim, IntArrayRef sizes);
std::vector<Tensor> unbind_recorded(const Tensor& x, int64_t dim);

/// One LSTM step from the gate pre-activations [B, 4H] (i, f, g, o) and c_prev [B, H].
struct LstmCellParts {
  Tensor i, f, g, o;  // σ(i), σ(f), tanh(g), σ(o)
  Tensor c, tanh_c;
  Tensor h_raw;  // σ(o)·tanh(c), before any projection
};
LstmCellParts lstm_cell_composed(const Tensor& gates, const Tensor& c_prev);

}  // namespace ember::detail
