// torch::data::samplers::SequentialSampler: indices 0, 1, ..., size - 1 in order.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ember/core/macros.h"
#include "ember/data/samplers/base.h"

namespace ember::data::samplers {

/// Yields [0, size) in order, batch_size indices at a time.
class EMBER_API SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size);

  /// Back to index 0 (over `new_size` examples when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  /// The next up to `batch_size` indices; nullopt at the end.
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "index" (an int64 buffer, as LibTorch).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// The next index to yield.
  size_t index() const noexcept;

 private:
  size_t size_;
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
