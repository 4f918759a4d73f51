// torch::data::datasets::MapDataset: a data set whose batches go through a transform, made by
// `dataset.map(transform)`, chainable: `MNIST(root).map(Normalize<>(0.5, 0.5)).map(Stack<>())`.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include "ember/data/datasets/base.h"

namespace ember::data::datasets {

namespace detail {
template <bool C, typename T>
using optional_if_t = std::conditional_t<C, std::optional<T>, T>;
}  // namespace detail

/// `SourceDataset`'s batches after `AppliedTransform::apply_batch`. Stateful when the source is
/// (a nullopt batch passes through untransformed).
template <typename SourceDataset, typename AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                          detail::optional_if_t<SourceDataset::is_stateful,
                                                typename AppliedTransform::OutputBatchType>,
                          typename SourceDataset::BatchRequestType> {
 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType =
      detail::optional_if_t<SourceDataset::is_stateful, typename AppliedTransform::OutputBatchType>;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  /// The source's batch for `request`, transformed.
  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (SourceDataset::is_stateful) {
      if (auto batch = dataset_.get_batch(std::move(request))) {
        return transform_.apply_batch(std::move(*batch));
      }
      return std::nullopt;
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }
  /// The source's size.
  std::optional<size_t> size() const noexcept override { return dataset_.size(); }
  /// Resets the source (stateful data sets: a new epoch).
  void reset() { dataset_.reset(); }

  /// The source data set.
  const SourceDataset& dataset() noexcept { return dataset_; }
  /// The transform.
  const AppliedTransform& transform() noexcept { return transform_; }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

/// `dataset.map(transform)` as a free function.
template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  using SourceBatch =
      std::conditional_t<DatasetType::is_stateful, typename DatasetType::BatchType::value_type,
                         typename DatasetType::BatchType>;
  static_assert(std::is_same_v<SourceBatch, typename TransformType::InputBatchType>,
                "map: the data set's batch type is not the transform's input batch type");
  return {std::move(dataset), std::move(transform)};
}

}  // namespace ember::data::datasets
