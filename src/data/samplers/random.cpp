#include "ember/data/samplers/random.h"

#include <algorithm>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/data/samplers/archive_index.h"

namespace ember::data::samplers {

RandomSampler::RandomSampler(int64_t size, ScalarType index_dtype) {
  EMBER_CHECK_VALUE(size >= 0, "RandomSampler: size is {}; expected >= 0", size);
  EMBER_CHECK_TYPE(index_dtype == kInt64 || index_dtype == kInt32 || index_dtype == kInt16,
                   "RandomSampler: index_dtype is {}; expected an integer type (int64, int32, "
                   "int16)",
                   index_dtype);
  // As LibTorch: the constructor draws a permutation and the loader's begin() draws the next.
  indices_ = randperm(size, TensorOptions().dtype(index_dtype));
}

RandomSampler::~RandomSampler() = default;

void RandomSampler::reset(std::optional<size_t> new_size) {
  const int64_t size = new_size ? static_cast<int64_t>(*new_size) : indices_.numel();
  indices_ = randperm(size, TensorOptions().dtype(indices_.scalar_type()));
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  const int64_t remaining = indices_.numel() - index_;
  if (remaining <= 0) return std::nullopt;
  const int64_t n = std::min<int64_t>(remaining, static_cast<int64_t>(batch_size));
  std::vector<size_t> batch(static_cast<size_t>(n));
  Tensor slice = indices_.slice(0, index_, index_ + n);
  if (slice.scalar_type() != kInt64) slice = slice.to(kInt64);
  const int64_t* p = slice.contiguous().data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) batch[static_cast<size_t>(i)] = static_cast<size_t>(p[i]);
  index_ += n;
  return batch;
}

void RandomSampler::save(serialize::OutputArchive& archive) const {
  detail::write_index(archive, "index", static_cast<size_t>(index_));
  archive.write("indices", indices_, /*is_buffer=*/true);
}

void RandomSampler::load(serialize::InputArchive& archive) {
  const size_t index = detail::read_index(archive, "index", "RandomSampler");
  Tensor indices;
  archive.read("indices", indices, /*is_buffer=*/true);
  EMBER_CHECK(indices.dim() == 1 && is_integral(indices.scalar_type(), false),
              "RandomSampler::load: 'indices' is a {} tensor of sizes {}; expected a 1-d "
              "integer permutation",
              indices.scalar_type(), indices.sizes());
  EMBER_CHECK(index <= static_cast<size_t>(indices.numel()),
              "RandomSampler::load: 'index' {} is past the end of the {} indices", index,
              indices.numel());
  if (indices.numel() > 0) {
    const int64_t lo = indices.min().item<int64_t>();
    EMBER_CHECK(lo >= 0, "RandomSampler::load: 'indices' holds {}; expected indices >= 0", lo);
  }
  indices_ = indices;
  index_ = static_cast<int64_t>(index);
}

size_t RandomSampler::index() const noexcept { return static_cast<size_t>(index_); }

}  // namespace ember::data::samplers
