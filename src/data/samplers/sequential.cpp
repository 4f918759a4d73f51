#include "ember/data/samplers/sequential.h"

#include <algorithm>
#include <numeric>

#include "ember/ops/factory.h"
#include "src/data/samplers/archive_index.h"

namespace ember::data::samplers {

SequentialSampler::SequentialSampler(size_t size) : size_(size) {}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  if (index_ >= size_) return std::nullopt;
  std::vector<size_t> batch(std::min(batch_size, size_ - index_));
  std::iota(batch.begin(), batch.end(), index_);
  index_ += batch.size();
  return batch;
}

void SequentialSampler::save(serialize::OutputArchive& archive) const {
  detail::write_index(archive, "index", index_);
}

void SequentialSampler::load(serialize::InputArchive& archive) {
  index_ = detail::read_index(archive, "index", "SequentialSampler");
}

size_t SequentialSampler::index() const noexcept { return index_; }

}  // namespace ember::data::samplers
