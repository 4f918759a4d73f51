// The data set interfaces of torch::data::datasets: BatchDataset (a batch per request), Dataset
// (an example per index; batches are gathered from get()), StreamDataset (requests are sizes).
//
//   struct Squares : ember::data::datasets::Dataset<Squares> {
//     ember::data::Example<> get(size_t i) override { ... }
//     std::optional<size_t> size() const override { return 100; }
//   };
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/data/example.h"

namespace ember::data::datasets {

template <typename Source, typename AppliedTransform>
class MapDataset;
template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform);

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

/// A data set that answers a BatchRequest (by default a list of indices) with a Batch. A data
/// set whose Batch is an optional is stateful: it says when an epoch is over by returning nullopt.
template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  /// True when get_batch returns an optional (the data set ends its epochs itself).
  constexpr static bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;

  /// The batch for `request`.
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, or nullopt when unknown (streams, stateful data sets).
  virtual std::optional<size_t> size() const = 0;

  /// A data set that applies `transform` to each batch of this one (copied into it).
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  /// A data set that applies `transform` to each batch of this one (moved into it).
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A data set of single examples: implement get(index) and size(); get_batch gathers get().
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  /// The example at `index`.
  virtual ExampleType get(size_t index) = 0;

  /// One get() per index, in order.
  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// A data set whose requests are batch sizes (StreamSampler), for data without indices.
template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, /*BatchRequest=*/size_t>;

}  // namespace ember::data::datasets
