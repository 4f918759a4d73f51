// One LSTM layer and direction over a whole sequence as a single autograd node, on the fused
// cell kernels (op rows lstm_cell / lstm_cell_backward). Used by ember::lstm (nn_rnn.cpp) where
// the device and dtype have those kernels.
#pragma once

#include "ember/core/tensor.h"

namespace ember::detail {

/// Whether lstm_layer runs for tensors like `t` (its device and dtype have the fused kernels).
bool lstm_layer_supported(const Tensor& t);

struct LstmLayerResult {
  Tensor output;  // [T, B, H_out]
  Tensor h, c;    // the state after the last step taken
};

/// The layer over `proj` [T, B, 4H] (x·W_ihᵀ + b_ih + b_hh, recorded by the caller) from h0
/// [B, H_out] and c0 [B, H]; w_hr [H_out, H] projects h when defined; `reverse` walks the
/// sequence from its end. Forward runs the fused cell per step; backward through time runs the
/// fused cell backward per step and one GEMM each for W_hh's and W_hr's gradients over all steps.
/// Under create_graph the backward recomputes the forward from recorded ops and differentiates
/// it with recorded ops, so double backward works.
LstmLayerResult lstm_layer(const Tensor& proj, const Tensor& h0, const Tensor& c0,
                           const Tensor& w_hh, const Tensor& w_hr, bool reverse);

}  // namespace ember::detail
