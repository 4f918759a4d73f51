// Options of CosineSimilarity and PairwiseDistance, as LibTorch's torch/nn/options/distance.h:
//   F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(-1));
//   F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().p(1).keepdim(true));
#pragma once

#include <cstdint>

#include "ember/core/arg.h"

namespace ember::nn {

/// Options of CosineSimilarity: x1·x2 / (max(‖x1‖, eps)·max(‖x2‖, eps)) along `dim`.
struct CosineSimilarityOptions {
  /// The dim the vectors lie along (of the broadcast shape).
  EMBER_ARG(int64_t, dim) = 1;
  /// Lower bound of each norm, against division by zero.
  EMBER_ARG(double, eps) = 1e-8;
};

/// Options of PairwiseDistance: ‖x1 - x2 + eps‖_p over the last dim.
struct PairwiseDistanceOptions {
  /// The norm degree (any real; inf gives the max norm).
  EMBER_ARG(double, p) = 2.0;
  /// Added to the difference, against a zero norm's undefined gradient.
  EMBER_ARG(double, eps) = 1e-6;
  /// Keep the reduced last dim with size 1.
  EMBER_ARG(bool, keepdim) = false;
};

namespace functional {
/// Options of F::cosine_similarity.
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
/// Options of F::pairwise_distance.
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace ember::nn
