// torch::data::transforms::TensorTransform (a function of an example's data tensor, the target
// passes through), TensorLambda and Normalize.
//
//   MNIST(root).map(Normalize<>(0.2860, 0.3530))          // one channel
//   images.map(Normalize<>({0.5, 0.5, 0.5}, {0.2, 0.2, 0.2}))  // per channel of [C, H, W] data
#pragma once

#include <functional>
#include <utility>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"
#include "ember/data/example.h"
#include "ember/data/transforms/base.h"
#include "ember/ops/factory.h"

namespace ember::data::transforms {

/// Transforms the data tensor of each example; the target is kept.
template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  using typename Transform<E, E>::InputType;
  using typename Transform<E, E>::OutputType;

  /// The transformed data tensor.
  virtual Tensor operator()(Tensor input) = 0;

  /// The example with its data through operator().
  OutputType apply(InputType input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// A TensorTransform from a function.
template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}

  /// function(input).
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// (data - mean) / stddev, per channel: mean and stddev are one value each or one per channel of
/// [C, H, W] data (stored as float32 [C, 1, 1], as LibTorch, so they broadcast over H and W).
template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(channel_column(mean)), stddev(channel_column(stddev)) {}

  /// (input - mean) / stddev.
  Tensor operator()(Tensor input) override {
    // In place on the fresh difference saves an allocation per example, unless a per-channel
    // stddev must widen a one-channel difference.
    Tensor centred = input.sub(mean);
    return stddev.numel() <= mean.numel() ? centred.div_(stddev) : centred.div(stddev);
  }

  Tensor mean, stddev;

 private:
  static Tensor channel_column(ArrayRef<double> values) {
    if (values.empty()) throw ValueError("Normalize: mean and stddev need at least one value");
    return tensor(values.vec(), kFloat32).unsqueeze(1).unsqueeze(2);
  }
};

}  // namespace ember::data::transforms
