#include "ember/data/samplers/stream.h"

#include <algorithm>

#include "src/data/samplers/archive_index.h"

namespace ember::data::samplers {

BatchSize::BatchSize(size_t size) : size_(size) {}
size_t BatchSize::size() const noexcept { return size_; }
BatchSize::operator size_t() const noexcept { return size_; }

StreamSampler::StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}

void StreamSampler::reset(std::optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

std::optional<BatchSize> StreamSampler::next(size_t batch_size) {
  if (examples_retrieved_so_far_ >= epoch_size_) return std::nullopt;
  batch_size = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  examples_retrieved_so_far_ += batch_size;
  return BatchSize(batch_size);
}

void StreamSampler::save(serialize::OutputArchive& archive) const {
  detail::write_index(archive, "examples_retrieved_so_far", examples_retrieved_so_far_);
}

void StreamSampler::load(serialize::InputArchive& archive) {
  examples_retrieved_so_far_ =
      detail::read_index(archive, "examples_retrieved_so_far", "StreamSampler");
}

}  // namespace ember::data::samplers
