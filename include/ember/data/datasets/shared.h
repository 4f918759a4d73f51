// torch::data::datasets::SharedBatchDataset: a data set held by shared_ptr, so that the loader's
// copies (one per worker) all use one object, as a stateful data set needs.
//
//   auto ds = ember::data::datasets::make_shared_dataset<MyChunkDataset>(reader, ...);
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "ember/data/datasets/base.h"

namespace ember::data::datasets {

/// Forwards to the shared `UnderlyingDataset`; copies share it.
template <typename UnderlyingDataset>
class SharedBatchDataset : public BatchDataset<SharedBatchDataset<UnderlyingDataset>,
                                               typename UnderlyingDataset::BatchType,
                                               typename UnderlyingDataset::BatchRequestType> {
 public:
  using BatchType = typename UnderlyingDataset::BatchType;
  using BatchRequestType = typename UnderlyingDataset::BatchRequestType;

  /* implicit */ SharedBatchDataset(std::shared_ptr<UnderlyingDataset> shared_dataset)
      : dataset_(std::move(shared_dataset)) {}

  /// The shared data set's batch.
  BatchType get_batch(BatchRequestType request) override {
    return dataset_->get_batch(std::move(request));
  }
  /// The shared data set's size.
  std::optional<size_t> size() const override { return dataset_->size(); }

  /// The shared data set.
  UnderlyingDataset& operator*() { return *dataset_; }
  const UnderlyingDataset& operator*() const { return *dataset_; }
  UnderlyingDataset* operator->() { return dataset_.get(); }
  const UnderlyingDataset* operator->() const { return dataset_.get(); }

  /// Resets the shared data set.
  void reset() { dataset_->reset(); }

 private:
  std::shared_ptr<UnderlyingDataset> dataset_;
};

/// Constructs an `UnderlyingDataset` from `args` in a shared_ptr and wraps it.
template <typename UnderlyingDataset, typename... Args>
SharedBatchDataset<UnderlyingDataset> make_shared_dataset(Args&&... args) {
  return std::make_shared<UnderlyingDataset>(std::forward<Args>(args)...);
}

}  // namespace ember::data::datasets
