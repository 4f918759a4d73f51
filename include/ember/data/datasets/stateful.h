// torch::data::datasets::StatefulDataset: a data set that keeps its own position (answers a batch
// size with the next batch, or nullopt at the end of an epoch), can be reset and checkpointed.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ember/data/datasets/base.h"
#include "ember/data/example.h"
#include "ember/serialize/archive.h"

namespace ember::data::datasets {

/// Base of stateful data sets: get_batch returns nullopt when the epoch is over.
template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  /// Starts a new epoch.
  virtual void reset() = 0;
  /// Writes the data set's position.
  virtual void save(serialize::OutputArchive& archive) const = 0;
  /// Restores a position written by save().
  virtual void load(serialize::InputArchive& archive) = 0;
};

/// `archive << dataset` == dataset.save(archive).
template <typename... Args>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const StatefulDataset<Args...>& dataset) {
  dataset.save(archive);
  return archive;
}

/// `archive >> dataset` == dataset.load(archive).
template <typename... Args>
serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                    StatefulDataset<Args...>& dataset) {
  dataset.load(archive);
  return archive;
}

}  // namespace ember::data::datasets
