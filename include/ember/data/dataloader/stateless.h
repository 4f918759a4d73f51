// torch::data::StatelessDataLoader: a sampler picks the indices of each batch; each worker loads
// batches from its own copy of the data set (copy a SharedBatchDataset to share one).
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "ember/data/dataloader/base.h"

namespace ember::data {

/// Loads `Dataset` batches for the requests of `Sampler`.
template <typename Dataset, typename Sampler>
class StatelessDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType,
                                                  typename Sampler::BatchRequestType> {
 public:
  using super =
      DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType>;
  using typename super::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : super(std::move(options)), sampler_(std::move(sampler)) {
    if (this->options_.workers == 0) {
      this->main_thread_dataset_ = std::make_unique<Dataset>(std::move(dataset));
    } else {
      this->start_workers([&dataset](size_t) { return std::make_unique<Dataset>(dataset); });
    }
  }
  /// Joins the workers before the sampler goes.
  ~StatelessDataLoader() override { this->join(); }

 private:
  void reset() override {
    sampler_.reset(std::nullopt);
    super::reset();
  }

  std::optional<BatchRequestType> get_batch_request() override {
    auto request = sampler_.next(this->options_.batch_size);
    if (!request || (request->size() < this->options_.batch_size && this->options_.drop_last))
      return std::nullopt;
    return request;
  }

  Sampler sampler_;
};

}  // namespace ember::data
