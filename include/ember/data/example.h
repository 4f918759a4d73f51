// torch::data::Example: one (data, target) pair of a data set, or data alone with NoTarget.
//
//   ember::data::Example<> e{image, label};     // e.data, e.target
//   ember::data::TensorExample t{tensor};       // converts to Tensor&
#pragma once

#include <utility>

#include "ember/core/tensor.h"

namespace ember::data {

/// One example: `data` and its `target` (both tensors by default).
template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
/// The Target of an Example that has none.
using NoTarget = void;
}  // namespace example

/// An example without a target: just `data`, convertible to it.
template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}

  /// The data.
  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

/// A tensor without a target (what TensorDataset yields).
using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace ember::data
