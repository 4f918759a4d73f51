#include "ember/data/samplers/distributed.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "src/core/check.h"
#include "src/data/samplers/archive_index.h"

namespace ember::data::samplers {

namespace detail {
void distributed_sampler_bad_rank(size_t num_replicas, size_t rank) {
  EMBER_CHECK_VALUE(num_replicas > 0, "DistributedSampler: num_replicas is 0; expected >= 1");
  EMBER_FAIL("DistributedSampler: rank {} is out of range for {} replicas; expected 0 to {}", rank,
             num_replicas, num_replicas - 1);
}
}  // namespace detail

// ---- DistributedRandomSampler ----

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  DistributedRandomSampler::reset(size_);
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  size_ = new_size.value_or(size_);
  populate_indices();
  // std::mt19937 seeded with the epoch: the same stream, and with libstdc++'s std::shuffle the
  // same permutation, on every replica and in LibTorch.
  std::mt19937 rng(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(all_indices_.begin(), all_indices_.end(), rng);
  sample_index_ = begin_index_;
}

void DistributedRandomSampler::populate_indices() {
  const size_t local = local_sample_count();
  const size_t total = num_replicas_ == 1 ? size_ : local * num_replicas_;
  // With duplicates the indices past size_ repeat 0, 1, ...; without, total <= size_ and the
  // shuffle decides which indices are left out.
  all_indices_.resize(total);
  for (size_t i = 0; i < total; ++i) all_indices_[i] = i < size_ ? i : i - size_;
  begin_index_ = rank_ * local;
  end_index_ = begin_index_ + local;
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (sample_index_ >= end_index_) return std::nullopt;
  const size_t end = std::min(end_index_, sample_index_ + batch_size);
  std::vector<size_t> batch(all_indices_.begin() + static_cast<std::ptrdiff_t>(sample_index_),
                            all_indices_.begin() + static_cast<std::ptrdiff_t>(end));
  sample_index_ = end;
  return batch;
}

void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  detail::write_index(archive, "sample_index_", sample_index_);
  detail::write_index(archive, "epoch_", epoch_);
}

void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  epoch_ = detail::read_index(archive, "epoch_", "DistributedRandomSampler");
  reset(size_);  // the permutation of that epoch
  const size_t index = detail::read_index(archive, "sample_index_", "DistributedRandomSampler");
  EMBER_CHECK(index >= begin_index_ && index <= end_index_,
              "DistributedRandomSampler::load: 'sample_index_' {} is outside rank {}'s range "
              "[{}, {}]",
              index, rank_, begin_index_, end_index_);
  sample_index_ = index;
}

size_t DistributedRandomSampler::index() const noexcept { return sample_index_; }

// ---- DistributedSequentialSampler ----

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas,
                                                           size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  populate_indices();
}

void DistributedSequentialSampler::populate_indices() {
  begin_index_ = rank_ * local_sample_count();
  end_index_ = begin_index_ + local_sample_count();
  sample_index_ = begin_index_;
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  const size_t size = new_size.value_or(size_);
  if (size != size_) {
    size_ = size;
    populate_indices();
  } else {
    sample_index_ = begin_index_;
  }
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  if (sample_index_ >= end_index_) return std::nullopt;
  const size_t end = std::min(end_index_, sample_index_ + batch_size);
  std::vector<size_t> batch(end - sample_index_);
  std::iota(batch.begin(), batch.end(), sample_index_);
  // The padding of the last replica (allow_duplicates) wraps around to the first indices.
  for (size_t& i : batch) i = i % size_;
  sample_index_ = end;
  return batch;
}

void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  detail::write_index(archive, "sample_index_", sample_index_);
}

void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  const size_t index = detail::read_index(archive, "sample_index_", "DistributedSequentialSampler");
  EMBER_CHECK(index >= begin_index_ && index <= end_index_,
              "DistributedSequentialSampler::load: 'sample_index_' {} is outside rank {}'s range "
              "[{}, {}]",
              index, rank_, begin_index_, end_index_);
  sample_index_ = index;
}

size_t DistributedSequentialSampler::index() const noexcept { return sample_index_; }

}  // namespace ember::data::samplers
