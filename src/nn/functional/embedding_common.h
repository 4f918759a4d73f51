// Helpers shared by F::embedding (embedding.cpp), F::embedding_bag (embedding_bag.cpp) and
// torch::embedding_bag (src/ops/nn_ops.cpp). Private to the library.
//
// Index checks and the bookkeeping of bags run on the host (the indices are read there once);
// the row work (gathers, bag sums and maxima, gradient scatters, max_norm's rescaling) runs on the
// weight's device through the `embedding`, `embedding_bag` and `embedding_backward` kernel slots,
// with every index array moved to that device first (embedding_rows.cpp).
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/options/embedding.h"

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
/// How often each position's index occurs among idx[0, n) (for scale_grad_by_freq).
std::vector<int64_t> index_counts(const int64_t* idx, int64_t n);

/// The int64 arrays `parts` as contiguous 1-D tensors on like's device, moved there in one copy.
std::vector<Tensor> int64_on_device(const Tensor& like,
                                    std::initializer_list<const std::vector<int64_t>*> parts);
/// v as a contiguous float64 1-D tensor on like's device.
Tensor doubles_on_device(const Tensor& like, const std::vector<double>& v);

/// table[idx] as [n, D] through the `embedding` kernel, unrecorded. table: [R, D] (made dense
/// here); idx: int64 indices into its rows on its device.
Tensor gather_rows(const Tensor& table, const Tensor& idx);

/// embedding_renorm_: rescales in place, unrecorded, each distinct row of weight that host_idx
/// looks up whose norm_type-norm exceeds max_norm, to norm max_norm.
void renorm_rows(const Tensor& weight, const Tensor& host_idx, double max_norm, double norm_type);

/// weight[idx] as [n, D]. The gradient of lookup k is multiplied by coef[k] (float64, or
/// undefined for all ones: 0 for padding, 1/count for scale_grad_by_freq) and added into row
/// idx[k]. idx and coef: contiguous, on weight's device.
Tensor lookup_rows(const Tensor& weight, const Tensor& idx, const Tensor& coef);

/// Dense [num_rows, D] gradient: Σ_k coef[k]·src[src_row[k]] into row idx[k] (src_row undefined:
/// k; coef undefined: 1), of dtype `dtype`. The index tensors and coef are int64 / float64 on
/// src's device. Recorded, differentiable in src and coef, when grad mode is on and one of them
/// requires grad (double backward); the `embedding_backward` kernel, summing in float32 or
/// float64, otherwise.
Tensor scatter_rows(const Tensor& src, const Tensor& idx, const Tensor& src_row, const Tensor& coef,
                    int64_t num_rows, ScalarType dtype);

/// embedding_bag's output and ATen's bookkeeping (filled only when asked for): offset2bag [n] (the
/// bag of each index, 0 outside every bag), bag_size [B] (non-padding indices per bag),
/// max_indices ([B, D] winning rows in max mode, 0 for empty bags; bag_size otherwise).
struct BagOutputs {
  Tensor output, offset2bag, bag_size, max_indices;
};
BagOutputs embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                         const EmbeddingBagMode& mode, bool sparse,
                         const Tensor& per_sample_weights, bool include_last_offset,
                         std::optional<int64_t> padding_idx, bool bookkeeping);

}  // namespace ember::nn::functional::emb
