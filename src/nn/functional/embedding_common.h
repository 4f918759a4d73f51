// Helpers shared by F::embedding (embedding.cpp) and F::embedding_bag (embedding_bag.cpp).
// Private to the library.
#pragma once

#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::functional::emb {

/// Checks that weight is a defined, floating, 2-D [num_embeddings, embedding_dim] table.
void check_table(const Tensor& weight, const char* op);
/// Checks that t holds int64 or int32 indices.
void check_indices(const Tensor& t, const char* op, const char* arg);
/// padding_idx in [0, V), or -1 for none; negative values count from the end, as PyTorch.
int64_t resolve_padding_idx(std::optional<int64_t> padding_idx, const Tensor& weight,
                            const char* op);
/// The indices as a contiguous int64 CPU tensor, each checked against [0, num_embeddings).
Tensor host_indices(const Tensor& input, const Tensor& weight, const char* op);
/// An int64 CPU tensor holding v.
Tensor host_tensor(const std::vector<int64_t>& v);
/// A float64 CPU tensor holding v.
Tensor host_doubles(const std::vector<double>& v);
/// host moved to like's device (itself on the CPU).
Tensor to_device_of(const Tensor& host, const Tensor& like);
/// How often each position's index occurs among idx[0, n) (for scale_grad_by_freq).
std::vector<int64_t> index_counts(const int64_t* idx, int64_t n);
/// embedding_renorm_: rescales in place, unrecorded, each distinct row of weight that host_idx
/// looks up whose norm_type-norm exceeds max_norm, to norm max_norm.
void renorm_rows(const Tensor& weight, const Tensor& host_idx, double max_norm, double norm_type);

/// weight[idx] as [n, D]. The gradient of lookup k is multiplied by coef[k] (a float64 CPU
/// tensor, or undefined for all ones: 0 for padding, 1/count for scale_grad_by_freq) and added
/// into row idx[k]. `host_idx`: the indices as a contiguous int64 CPU tensor.
Tensor lookup_rows(const Tensor& weight, const Tensor& host_idx, const Tensor& coef);

/// dense [V, D] gradient of weight: Σ_k coef[k]·src[src_row[k]] into row idx[k] (src_row
/// undefined: k; coef undefined: 1). All index tensors are int64 CPU. Differentiable in src when
/// grad mode is on (double backward); a fused row kernel otherwise.
Tensor scatter_rows(const Tensor& src, const Tensor& idx, const Tensor& src_row, const Tensor& coef,
                    int64_t num_rows, ScalarType dtype);

}  // namespace ember::nn::functional::emb
