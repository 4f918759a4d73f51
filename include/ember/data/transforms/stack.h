// torch::data::transforms::Stack: collates a vector of examples into one example whose data (and
// target) are the examples' tensors stacked along a new dim 0.
//
//   MNIST(root).map(Stack<>())   // batches are Example<>{[B, 1, 28, 28], [B]}
#pragma once

#include <utility>
#include <vector>

#include "ember/data/example.h"
#include "ember/data/transforms/collate.h"
#include "ember/ops/shape.h"

namespace ember::data::transforms {

template <typename T = Example<>>
struct Stack;

/// Stacks data and targets.
template <>
struct Stack<Example<>> : public Collation<Example<>> {
  /// {stack(data...), stack(target...)}.
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {stack(data), stack(targets)};
  }
};

/// Stacks data (examples without targets).
template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  /// stack(data...).
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    return stack(data);
  }
};

}  // namespace ember::data::transforms
