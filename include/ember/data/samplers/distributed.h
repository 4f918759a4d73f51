// torch::data::samplers::DistributedRandomSampler / DistributedSequentialSampler: the share of one
// replica (rank) of num_replicas. Each replica gets ceil(size / num_replicas) indices when
// allow_duplicates (the first few indices are repeated to pad), else floor(size / num_replicas)
// (the last few are left out). The random one shuffles with std::mt19937 seeded by the epoch
// (set_epoch), so every replica draws the same permutation, exactly as LibTorch.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ember/core/macros.h"
#include "ember/data/samplers/base.h"

namespace ember::data::samplers {

/// Shared state of the distributed samplers.
template <typename BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                     bool allow_duplicates = true)
      : size_(size),
        num_replicas_(num_replicas),
        rank_(rank),
        epoch_(0),
        allow_duplicates_(allow_duplicates) {
    check_replicas(num_replicas, rank);
  }

  /// The epoch, which seeds the shuffle of the random sampler (takes effect at reset()).
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  /// The epoch set last.
  size_t epoch() const { return epoch_; }

 protected:
  /// The number of indices of each replica.
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }

  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_;
  bool allow_duplicates_;

 private:
  static void check_replicas(size_t num_replicas, size_t rank);
};

namespace detail {
[[noreturn]] EMBER_API void distributed_sampler_bad_rank(size_t num_replicas, size_t rank);
}  // namespace detail

template <typename BatchRequest>
void DistributedSampler<BatchRequest>::check_replicas(size_t num_replicas, size_t rank) {
  if (num_replicas == 0 || rank >= num_replicas)
    detail::distributed_sampler_bad_rank(num_replicas, rank);
}

/// A replica's share of a per-epoch shuffle of [0, size).
class EMBER_API DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                           bool allow_duplicates = true);

  /// Shuffles again with the current epoch (over `new_size` when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "sample_index_" and "epoch_" (int64 buffers, as LibTorch).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// The position in the shuffled indices.
  size_t index() const noexcept;

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

/// A replica's contiguous share of [0, size), in order.
class EMBER_API DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                               bool allow_duplicates = true);

  /// Back to the replica's first index (its share recomputed for `new_size` when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "sample_index_" (an int64 buffer, as LibTorch).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// The next index to yield (before wrapping around `size`).
  size_t index() const noexcept;

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
};

}  // namespace ember::data::samplers
