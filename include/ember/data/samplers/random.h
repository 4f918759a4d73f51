// torch::data::samplers::RandomSampler: a random permutation of [0, size) per epoch, drawn with
// randperm from the default generator, so ember::manual_seed(s) gives LibTorch's order for seed s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/scalar_type.h"
#include "ember/core/tensor.h"
#include "ember/data/samplers/base.h"

namespace ember::data::samplers {

/// Yields a permutation of [0, size), batch_size indices at a time; reset() draws a new one.
class EMBER_API RandomSampler : public Sampler<> {
 public:
  /// `index_dtype` (an integer type) holds the permutation: kInt32 halves its memory.
  explicit RandomSampler(int64_t size, ScalarType index_dtype = kInt64);
  ~RandomSampler() override;

  /// Draws a new permutation (of `new_size` when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  /// The next up to `batch_size` indices of the permutation; nullopt at the end.
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "index" and "indices" (int64 buffers, as LibTorch).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// The position in the permutation.
  size_t index() const noexcept;

 private:
  Tensor indices_;
  int64_t index_ = 0;
};

}  // namespace ember::data::samplers
