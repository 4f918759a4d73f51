// torch::data::samplers::Sampler: hands the loader one batch request (by default a list of
// indices) at a time, and nullopt when the epoch is over.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ember/serialize/archive.h"

namespace ember::data::samplers {

/// The interface of all samplers.
template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;

  /// Starts a new epoch, over `new_size` examples when given (else the current size).
  virtual void reset(std::optional<size_t> new_size) = 0;
  /// The next request of at most `batch_size` examples, or nullopt when the epoch is over.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
  /// Writes the sampler's position (and permutation, where it has one).
  virtual void save(serialize::OutputArchive& archive) const = 0;
  /// Restores what save() wrote.
  virtual void load(serialize::InputArchive& archive) = 0;
};

}  // namespace ember::data::samplers
