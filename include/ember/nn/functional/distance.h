// Functional distances (LibTorch's torch/nn/functional/distance.h):
//   Tensor c = F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(-1));
//   Tensor d = F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().p(1));
// The inputs broadcast against each other.
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/distance.h"

namespace ember::nn::functional {

/// Σ x1·x2 / (max(‖x1‖, eps)·max(‖x2‖, eps)) along options.dim() of the broadcast inputs.
EMBER_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                                   const CosineSimilarityFuncOptions& options = {});

/// ‖x1 - x2 + eps‖_p over the last dim of the broadcast inputs.
EMBER_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                                   const PairwiseDistanceFuncOptions& options = {});

namespace detail {
// Positional forms (as LibTorch's F::detail).
EMBER_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps);
EMBER_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps,
                                   bool keepdim);
}  // namespace detail

}  // namespace ember::nn::functional
