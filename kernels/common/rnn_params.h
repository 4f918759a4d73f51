// The kernel interface behind the `lstm_cell` and `lstm_cell_backward` slots: one LSTM time step
// over `batch` rows of `hidden` units, every array contiguous and row-major, of the kernel's
// dtype, in the memory of the device the kernel is registered for.
#pragma once

#include <cstdint>

namespace ember {

/// From the gate pre-activations [batch, 4·hidden] (i, f, g, o, PyTorch's order: x·W_ihᵀ +
/// h·W_hhᵀ + biases) and the cell state c_prev [batch, hidden]: c = σ(f)·c_prev + σ(i)·tanh(g),
/// h = σ(o)·tanh(c), and `act` [batch, 5·hidden] = σ(i), σ(f), tanh(g), σ(o), tanh(c) for the
/// backward.
struct LstmCellParams {
  int64_t batch = 0, hidden = 0;
  const void* gates = nullptr;
  const void* c_prev = nullptr;
  void* h = nullptr;
  void* c = nullptr;
  void* act = nullptr;
};

/// The gradients of one step from those of h and c (dh, dc [batch, hidden]; dc may be null for
/// zero) and the forward's act and c_prev: dgates [batch, 4·hidden] (of the pre-activations) and
/// dc_prev [batch, hidden].
struct LstmCellBackwardParams {
  int64_t batch = 0, hidden = 0;
  const void* dh = nullptr;
  const void* dc = nullptr;
  const void* act = nullptr;
  const void* c_prev = nullptr;
  void* dgates = nullptr;
  void* dc_prev = nullptr;
};

}  // namespace ember
