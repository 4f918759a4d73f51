// torch::data::transforms::BatchTransform (a whole batch at once) and Transform (one example at a
// time; its apply_batch maps apply over the batch).
#pragma once

#include <utility>
#include <vector>

namespace ember::data::transforms {

/// Turns an InputBatch into an OutputBatch (collations, batch-level augmentation).
template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  /// The transformed batch.
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// Turns each Input example of a batch into an Output example.
template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  /// The transformed example.
  virtual OutputType apply(InputType input) = 0;

  /// apply() on every example, in order.
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto&& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

}  // namespace ember::data::transforms
