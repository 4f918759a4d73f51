// Functional embeddings (LibTorch's torch/nn/functional/embedding.h):
//   Tensor e = F::embedding(ids, table, F::EmbeddingFuncOptions().padding_idx(0));
//   Tensor b = F::embedding_bag(ids, table,
//                               F::EmbeddingBagFuncOptions().offsets(offs).mode(ember::kSum));
// Indices are int64 or int32. Gradients are dense; with repeated indices they add up, and
// lookups of padding_idx contribute nothing.
#pragma once

#include <optional>

#include "ember/core/tensor.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn::functional {

/// Rows of weight [V, D] at input's indices: input [*] -> [*, D]. With max_norm, the rows looked
/// up are first rescaled in place (without recording) so their norm_type-norm is at most max_norm.
EMBER_API Tensor embedding(const Tensor& input, const Tensor& weight,
                           const EmbeddingFuncOptions& options = {});

/// Sums, means or maxes of bags of rows of weight [V, D] -> [B, D]. A 2-D input [B, L] holds B
/// bags of L indices; a 1-D input holds the bags back to back, bag b starting at offsets[b].
EMBER_API Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                               const EmbeddingBagFuncOptions& options = {});

namespace detail {
// Positional forms (as LibTorch's F::detail), for modules that keep their options.
EMBER_API Tensor embedding(const Tensor& input, const Tensor& weight,
                           std::optional<int64_t> padding_idx, std::optional<double> max_norm,
                           double norm_type, bool scale_grad_by_freq, bool sparse);
EMBER_API Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                               std::optional<double> max_norm, double norm_type,
                               bool scale_grad_by_freq, EmbeddingBagMode mode, bool sparse,
                               const Tensor& per_sample_weights, bool include_last_offset,
                               std::optional<int64_t> padding_idx);
}  // namespace detail

}  // namespace ember::nn::functional
