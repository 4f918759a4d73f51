// Kernel op rows of the recurrent family: the fused LSTM cell (gate nonlinearities and state
// update of one time step) and its backward. Each row is _(name, Kind) as in EMBER_KERNEL_OPS
// (op_table.h), which includes this list; Kind is a kernel type of
// src/dispatch/kernel_signatures_rnn.h. The recurrent GEMMs are mm/addmm rows.
#pragma once

#define EMBER_RNN_KERNEL_OPS(_) \
  _(lstm_cell, LstmCell)        \
  _(lstm_cell_backward, LstmCellBackward)
