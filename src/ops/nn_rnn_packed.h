// The recurrent layer stacks over packed sequences (nn::utils::rnn::PackedSequence's data and
// batch sizes), for the modules' forward_with_packed_input. Composed of recorded ops.
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::detail {

enum class RnnMode { kTanh, kRelu, kLSTM, kGRU };

struct PackedRnnResult {
  Tensor data;  // [total, directions * H_out], packed as the input
  Tensor h, c;  // [layers * directions, batch, *]: each sequence's own final state (c: LSTM)
};

/// data [total, input_size] with step t holding the first batch_sizes[t] sequences (longest
/// first); hx (and cx) [layers * directions, batch_sizes[0], *] in that sorted order; params as
/// ember::lstm's.
PackedRnnResult rnn_packed(RnnMode mode, const Tensor& data, IntArrayRef batch_sizes,
                           const Tensor& hx, const Tensor& cx, TensorList params, bool has_biases,
                           int64_t num_layers, double dropout, bool train, bool bidirectional);

}  // namespace ember::detail
