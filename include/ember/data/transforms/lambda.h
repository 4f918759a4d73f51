// torch::data::transforms::Lambda / BatchLambda: a transform from a function.
//
//   .map(ember::data::transforms::Lambda<Example<>>([](Example<> e) { ...; return e; }))
#pragma once

#include <functional>
#include <utility>

#include "ember/data/transforms/base.h"

namespace ember::data::transforms {

/// A BatchTransform that calls `function` on the batch.
template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using typename BatchTransform<Input, Output>::InputBatchType;
  using typename BatchTransform<Input, Output>::OutputBatchType;
  using FunctionType = std::function<OutputBatchType(InputBatchType)>;

  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}

  /// function(batch).
  OutputBatchType apply_batch(InputBatchType input_batch) override {
    return function_(std::move(input_batch));
  }

 private:
  FunctionType function_;
};

/// A Transform that calls `function` on each example.
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using typename Transform<Input, Output>::InputType;
  using typename Transform<Input, Output>::OutputType;
  using FunctionType = std::function<Output(Input)>;

  explicit Lambda(FunctionType function) : function_(std::move(function)) {}

  /// function(example).
  OutputType apply(InputType input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

}  // namespace ember::data::transforms
