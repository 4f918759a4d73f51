// Variable-length sequences for the recurrent layers, as LibTorch's torch/nn/utils/rnn.h:
//
//   namespace rnn = ember::nn::utils::rnn;
//   auto packed = rnn::pack_padded_sequence(padded, lengths, /*batch_first=*/true,
//                                           /*enforce_sorted=*/false);
//   auto [out, state] = lstm->forward_with_packed_input(packed);
//   auto [padded_out, out_lengths] = rnn::pad_packed_sequence(out, /*batch_first=*/true);
//
// A PackedSequence holds the steps of every sequence back to back: step t holds the first
// batch_sizes[t] sequences, longest first (sorted_indices says which input sequence each is, when
// they were sorted). The recurrent layers take its data step by step, so each sequence's final
// state is taken at its own last step. All of it is composed of recorded ops (differentiable).
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/core/tensor_options.h"

namespace ember::nn::utils::rnn {

/// The inverse of a permutation (undefined for undefined).
EMBER_API Tensor invert_permutation(const Tensor& permutation);

class EMBER_API PackedSequence {
 public:
  /// data [total, *]; batch_sizes: int64 on the CPU, one entry per step; the indices int64
  /// permutations (unsorted_indices computed from sorted_indices when not given).
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {},
                          Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }
  /// data (and the indices, to data's device) converted; batch_sizes stays on the CPU.
  PackedSequence to(TensorOptions options) const;
  PackedSequence cuda() const;
  PackedSequence cpu() const;
  bool is_cuda() const { return data_.is_cuda(); }
  bool is_pinned() const { return false; }

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

/// Packs input [T, B, *] ([B, T, *] with batch_first) whose sequence b has lengths[b] steps
/// (lengths: 1-D integers, on the CPU). With enforce_sorted the lengths must not increase;
/// without, the sequences are sorted and the permutation kept.
EMBER_API PackedSequence pack_padded_sequence(Tensor input, Tensor lengths,
                                              bool batch_first = false, bool enforce_sorted = true);
/// The inverse: (padded [T, B, *] in the original order, lengths int64). total_length pads to that
/// many steps (at least the longest sequence).
EMBER_API std::tuple<Tensor, Tensor> pad_packed_sequence(
    PackedSequence sequence, bool batch_first = false, double padding_value = 0.0,
    std::optional<int64_t> total_length = std::nullopt);
/// Stacks sequences [L_i, *] into [max L, N, *] ([N, max L, *] with batch_first), padded.
EMBER_API Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first = false,
                              double padding_value = 0);
/// Packs a list of sequences [L_i, *].
EMBER_API PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
