// Options of Embedding and EmbeddingBag, as LibTorch's torch/nn/options/embedding.h:
//   nn::Embedding emb(nn::EmbeddingOptions(1000, 64).padding_idx(0).max_norm(1.0));
//   F::embedding(ids, weight, F::EmbeddingFuncOptions().padding_idx(0));
//   F::embedding_bag(ids, weight, F::EmbeddingBagFuncOptions().offsets(offs).mode(ember::kSum));
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

/// Options of Embedding: a [num_embeddings, embedding_dim] lookup table.
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// Rows of the table (the number of distinct indices).
  EMBER_ARG(int64_t, num_embeddings);
  /// Size of each embedding vector.
  EMBER_ARG(int64_t, embedding_dim);
  /// This row gets no gradient (and the module initialises it to zeros); negative counts from
  /// the end.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Rows looked up with a norm above this are rescaled in place to norm max_norm.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// The p of the p-norm for max_norm.
  EMBER_ARG(double, norm_type) = 2.;
  /// Scale each row's gradient by the inverse frequency of its index in the mini-batch.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// Sparse gradients: not supported by Ember (an Error at lookup time).
  EMBER_ARG(bool, sparse) = false;
  /// A table to use instead of a freshly initialised one.
  EMBER_ARG(Tensor, _weight) = Tensor();
};

/// Options of Embedding::from_pretrained.
struct EmbeddingFromPretrainedOptions {
  /// Whether the table is frozen (requires_grad false).
  EMBER_ARG(bool, freeze) = true;
  /// See EmbeddingOptions::padding_idx.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// See EmbeddingOptions::max_norm.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// See EmbeddingOptions::norm_type.
  EMBER_ARG(double, norm_type) = 2.;
  /// See EmbeddingOptions::scale_grad_by_freq.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// See EmbeddingOptions::sparse.
  EMBER_ARG(bool, sparse) = false;
};

namespace functional {

/// Options of F::embedding.
struct EmbeddingFuncOptions {
  /// Lookups of this index get no gradient; negative counts from the end.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Rows looked up with a norm above this are rescaled in place (no grad) to norm max_norm.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// The p of the p-norm for max_norm.
  EMBER_ARG(double, norm_type) = 2.;
  /// Scale each row's gradient by the inverse frequency of its index in the input.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// Sparse gradients: not supported by Ember (an Error).
  EMBER_ARG(bool, sparse) = false;
};

}  // namespace functional

/// How EmbeddingBag reduces a bag: kSum, kMean or kMax.
using EmbeddingBagMode = std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax>;

/// Options of EmbeddingBag: sums, averages or maxes bags of embeddings without materialising them.
struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// Rows of the table.
  EMBER_ARG(int64_t, num_embeddings);
  /// Size of each embedding vector.
  EMBER_ARG(int64_t, embedding_dim);
  /// Rows looked up with a norm above this are rescaled in place to norm max_norm.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// The p of the p-norm for max_norm.
  EMBER_ARG(double, norm_type) = 2.;
  /// Scale gradients by the inverse frequency of each index (not with kMax).
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// The reduction over a bag.
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  /// Sparse gradients: not supported by Ember (an Error).
  EMBER_ARG(bool, sparse) = false;
  /// A table to use instead of a freshly initialised one.
  EMBER_ARG(Tensor, _weight) = Tensor();
  /// offsets has one more entry than there are bags: the end of the last bag (CSR layout).
  EMBER_ARG(bool, include_last_offset) = false;
  /// Entries of this index are left out of their bag (and of a mean's count).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// Options of EmbeddingBag::from_pretrained.
struct EmbeddingBagFromPretrainedOptions {
  /// Whether the table is frozen (requires_grad false).
  EMBER_ARG(bool, freeze) = true;
  /// See EmbeddingBagOptions::max_norm.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// See EmbeddingBagOptions::norm_type.
  EMBER_ARG(double, norm_type) = 2.;
  /// See EmbeddingBagOptions::scale_grad_by_freq.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// See EmbeddingBagOptions::mode.
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  /// See EmbeddingBagOptions::sparse.
  EMBER_ARG(bool, sparse) = false;
  /// See EmbeddingBagOptions::include_last_offset.
  EMBER_ARG(bool, include_last_offset) = false;
  /// See EmbeddingBagOptions::padding_idx.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {

/// Options of F::embedding_bag.
struct EmbeddingBagFuncOptions {
  /// With a 1-D input: where each bag starts (int64 or int32). Must be undefined for 2-D input.
  EMBER_ARG(Tensor, offsets) = Tensor();
  /// Rows looked up with a norm above this are rescaled in place (no grad) to norm max_norm.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// The p of the p-norm for max_norm.
  EMBER_ARG(double, norm_type) = 2.;
  /// Scale gradients by the inverse frequency of each index (not with kMax).
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// The reduction over a bag.
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  /// Sparse gradients: not supported by Ember (an Error).
  EMBER_ARG(bool, sparse) = false;
  /// One weight per input entry (same shape as input), kSum only.
  EMBER_ARG(Tensor, per_sample_weights) = Tensor();
  /// offsets has one more entry than there are bags: the end of the last bag.
  EMBER_ARG(bool, include_last_offset) = false;
  /// Entries of this index are left out of their bag (and of a mean's count).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

}  // namespace functional
}  // namespace ember::nn
