// torch::data::samplers::StreamSampler: for StreamDatasets, requests batch sizes (BatchSize) until
// epoch_size examples were asked for.
#pragma once

#include <cstddef>
#include <optional>

#include "ember/core/macros.h"
#include "ember/data/samplers/base.h"
#include "ember/data/samplers/custom_batch_request.h"

namespace ember::data::samplers {

/// A request for `size` examples from a stream.
struct EMBER_API BatchSize : public CustomBatchRequest {
  explicit BatchSize(size_t size);
  /// The number of examples.
  size_t size() const noexcept override;
  /// The number of examples (what a StreamDataset's get_batch takes).
  operator size_t() const noexcept;
  size_t size_;
};

/// Requests batch_size examples at a time, the last request shortened to end at epoch_size.
class EMBER_API StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size);

  /// A new epoch (of `new_size` examples when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<BatchSize> next(size_t batch_size) override;
  /// Writes "examples_retrieved_so_far" (an int64 buffer, as LibTorch).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

}  // namespace ember::data::samplers
