// Distance modules (LibTorch's torch/nn/modules/distance.h).
//
//   nn::CosineSimilarity cos(nn::CosineSimilarityOptions().dim(1));
//   Tensor s = cos(a, b);   // a, b [N, D] -> [N]
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/options/distance.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// Cosine similarity of x1 and x2 (broadcast together) along options.dim().
class EMBER_API CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options_ = {}) : options(options_) {}
  /// x1, x2 broadcastable -> their broadcast shape without dim.
  Tensor forward(const Tensor& x1, const Tensor& x2);
  void pretty_print(std::ostream& stream) const override;
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

/// ‖x1 - x2 + eps‖_p over the last dim.
class EMBER_API PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options_ = {}) : options(options_) {}
  /// x1, x2 [*, D] broadcastable -> [*] (or [*, 1] with keepdim).
  Tensor forward(const Tensor& x1, const Tensor& x2);
  void pretty_print(std::ostream& stream) const override;
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
