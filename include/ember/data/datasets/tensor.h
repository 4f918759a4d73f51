// torch::data::datasets::TensorDataset: the rows (dim 0) of one tensor, as TensorExamples.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "ember/data/datasets/base.h"
#include "ember/data/example.h"
#include "ember/ops/shape.h"

namespace ember::data::datasets {

/// Example i is `tensor[i]`.
struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  /// The tensors stacked along a new dim 0.
  explicit TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(stack(tensors)) {}
  explicit TensorDataset(Tensor tensor) : tensor(std::move(tensor)) {}

  /// Row `index` (IndexError past the end).
  TensorExample get(size_t index) override { return tensor[static_cast<int64_t>(index)]; }
  /// The number of rows.
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }

  Tensor tensor;
};

}  // namespace ember::data::datasets
