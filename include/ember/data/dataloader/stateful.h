// torch::data::StatefulDataLoader: for stateful data sets (ChunkDataset, ...), which decide the
// batches themselves: every request is the batch size, and the epoch ends at the first nullopt.
// All workers share the one data set, so its get_batch must be thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "ember/data/dataloader/base.h"

namespace ember::data {

/// Loads batches of a stateful `Dataset` until it returns nullopt.
template <typename Dataset>
class StatefulDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                                                 typename Dataset::BatchRequestType> {
 public:
  using super = DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                               typename Dataset::BatchRequestType>;
  using typename super::BatchRequestType;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : super(std::move(options), std::make_unique<Dataset>(std::move(dataset))) {
    Dataset* shared = this->main_thread_dataset_.get();
    this->start_workers([shared](size_t) { return shared; });
  }
  /// Joins the workers.
  ~StatefulDataLoader() override { this->join(); }

 private:
  void reset() override {
    this->main_thread_dataset_->reset();
    super::reset();
  }

  std::optional<BatchRequestType> get_batch_request() override { return this->options_.batch_size; }
};

}  // namespace ember::data
