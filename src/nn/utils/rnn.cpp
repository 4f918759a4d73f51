// PackedSequence and the pack/pad helpers of ember/nn/utils/rnn.h, composed of recorded ops.
#include "ember/nn/utils/rnn.h"

#include <algorithm>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"

namespace ember::nn::utils::rnn {
namespace {

std::vector<int64_t> int_values(const Tensor& t) {
  const Tensor c = t.to(Device(kCPU)).to(kLong).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

/// `rows` rows of padding shaped like a row of `like` ([*]), or nothing.
Tensor padding_rows(const Tensor& like, int64_t rows, double value) {
  std::vector<int64_t> shape = like.sizes().vec();
  shape[0] = rows;
  return full(shape, value, like.options());
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return {};
  Tensor out = empty_like(permutation);
  NoGradGuard no_grad;
  out.scatter_(0, permutation, arange(permutation.numel(), permutation.options()));
  return out;
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  if (!unsorted_indices_.defined()) unsorted_indices_ = invert_permutation(sorted_indices_);
}

PackedSequence PackedSequence::to(TensorOptions options) const {
  Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  auto move = [&](const Tensor& t) { return t.defined() ? t.to(data.device()) : t; };
  return PackedSequence(data, batch_sizes_, move(sorted_indices_), move(unsorted_indices_));
}
PackedSequence PackedSequence::cuda() const { return to(TensorOptions().device(kCUDA)); }
PackedSequence PackedSequence::cpu() const { return to(TensorOptions().device(kCPU)); }

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first,
                                    bool enforce_sorted) {
  const char* op = "pack_padded_sequence";
  EMBER_CHECK_VALUE(input.dim() >= 2, "{}: expected input of at least 2 dims [T, B, *], got {}", op,
                    input.sizes());
  EMBER_CHECK_VALUE(lengths.dim() == 1 && !lengths.is_floating_point(),
                    "{}: expected 1-D integer lengths, got {} of dtype {}", op, lengths.sizes(),
                    lengths.dtype());
  Tensor sorted_indices;
  if (enforce_sorted) {
    const std::vector<int64_t> l = int_values(lengths);
    EMBER_CHECK_VALUE(std::is_sorted(l.rbegin(), l.rend()),
                      "{}: `lengths` array must be sorted in decreasing order when "
                      "`enforce_sorted` is true. Pass enforce_sorted=false to sort them here",
                      op);
  } else {
    std::tie(lengths, sorted_indices) = lengths.to(Device(kCPU)).to(kLong).sort(0, true);
    input = input.index_select(batch_first ? 0 : 1, sorted_indices.to(input.device()));
  }
  if (batch_first) input = input.transpose(0, 1);
  const std::vector<int64_t> l = int_values(lengths);
  EMBER_CHECK_VALUE(static_cast<int64_t>(l.size()) == input.size(1),
                    "{}: expected one length per sequence ({}), got {}", op, input.size(1),
                    l.size());
  EMBER_CHECK_VALUE(!l.empty() && l.back() > 0,
                    "{}: Length of all samples has to be greater than 0, but found an element in "
                    "'lengths' that is <= 0",
                    op);
  EMBER_CHECK_VALUE(l.front() <= input.size(0), "{}: a length ({}) exceeds the input's {} steps",
                    op, l.front(), input.size(0));
  std::vector<int64_t> batch_sizes;
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < l.front(); ++t) {
    const auto n = static_cast<int64_t>(
        std::count_if(l.begin(), l.end(), [t](int64_t len) { return len > t; }));
    batch_sizes.push_back(n);
    steps.push_back(input[t].narrow(0, 0, n));
  }
  Tensor sizes = tensor(batch_sizes, TensorOptions().dtype(kLong));
  if (sorted_indices.defined()) sorted_indices = sorted_indices.to(input.device());
  return PackedSequence(cat(steps, 0), sizes, sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(PackedSequence sequence, bool batch_first,
                                               double padding_value,
                                               std::optional<int64_t> total_length) {
  const char* op = "pad_packed_sequence";
  const std::vector<int64_t> sizes = int_values(sequence.batch_sizes());
  const auto steps = static_cast<int64_t>(sizes.size());
  EMBER_CHECK_VALUE(steps > 0, "{}: the packed sequence has no steps", op);
  const int64_t length = total_length.value_or(steps);
  EMBER_CHECK_VALUE(length >= steps,
                    "{}: Expected total_length to be at least the length of the longest sequence "
                    "({}), got {}",
                    op, steps, length);
  const Tensor& data = sequence.data();
  const int64_t batch = sizes.front();
  std::vector<Tensor> padded;
  int64_t offset = 0;
  for (int64_t n : sizes) {
    Tensor rows = data.narrow(0, offset, n);
    padded.push_back(n < batch ? cat({rows, padding_rows(data, batch - n, padding_value)}, 0)
                               : rows);
    offset += n;
  }
  EMBER_CHECK_VALUE(offset == data.size(0), "{}: batch_sizes add up to {} rows but the data has {}",
                    op, offset, data.size(0));
  Tensor out = stack(padded, 0);
  if (length > steps) {
    std::vector<int64_t> shape = out.sizes().vec();
    shape[0] = length - steps;
    out = cat({out, full(shape, padding_value, out.options())}, 0);
  }
  std::vector<int64_t> lengths(static_cast<size_t>(batch), 0);
  for (int64_t n : sizes)
    for (int64_t b = 0; b < n; ++b) ++lengths[static_cast<size_t>(b)];
  Tensor len = tensor(lengths, TensorOptions().dtype(kLong));
  if (sequence.unsorted_indices().defined()) {
    out = out.index_select(1, sequence.unsorted_indices());
    len = len.index_select(0, sequence.unsorted_indices().to(Device(kCPU)));
  }
  return {batch_first ? out.transpose(0, 1) : out, len};
}

Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first, double padding_value) {
  EMBER_CHECK_VALUE(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  int64_t longest = 0;
  for (const Tensor& s : sequences) {
    EMBER_CHECK_VALUE(s.dim() >= 1 && s.sizes().slice(1) == sequences[0].sizes().slice(1),
                      "pad_sequence: every sequence must be [L, *] with the same *, got {} and {}",
                      sequences[0].sizes(), s.sizes());
    longest = std::max(longest, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences)
    padded.push_back(
        s.size(0) < longest ? cat({s, padding_rows(s, longest - s.size(0), padding_value)}, 0) : s);
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences),
                              tensor(lengths, TensorOptions().dtype(kLong)), false, enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
