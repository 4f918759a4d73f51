// Kernel slot types of the recurrent family (the fused LSTM cell step and its backward);
// included by kernel_signatures.h.
#pragma once

namespace ember {

struct LstmCellParams;          // kernels/common/rnn_params.h
struct LstmCellBackwardParams;  // kernels/common/rnn_params.h

namespace kernel_kind {
using LstmCell = void (*)(ScalarType dtype, const LstmCellParams& p);
using LstmCellBackward = void (*)(ScalarType dtype, const LstmCellBackwardParams& p);
}  // namespace kernel_kind

}  // namespace ember
