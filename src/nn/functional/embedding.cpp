// F::embedding and the checks it shares with F::embedding_bag. A lookup is a row gather whose
// recorded backward adds each gradient row into its table row (so repeated indices add up), times
// a per-lookup coefficient: 0 for padding_idx, 1/count for scale_grad_by_freq. Both directions
// run on the weight's device (embedding_rows.cpp); the indices are checked on the host.
#include "ember/nn/functional/embedding.h"

#include <algorithm>
#include <vector>

#include "src/autograd/record.h"
#include "src/nn/functional/embedding_common.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional {
namespace emb {

using layer::describe;

void check_table(const Tensor& weight, const char* op) {
  layer::check_defined(weight, op, "weight");
  EMBER_CHECK(weight.dim() == 2,
              "{}: weight must be a 2-D [num_embeddings, embedding_dim] table, but got {}", op,
              describe(weight));
  layer::check_floating(weight, op, "weight");
}

void check_indices(const Tensor& t, const char* op, const char* arg) {
  layer::check_defined(t, op, arg);
  EMBER_CHECK_TYPE(t.dtype() == kLong || t.dtype() == kInt,
                   "{}: {} must hold int64 or int32 indices, but got {}. Hint: convert it with "
                   ".to(ember::kLong)",
                   op, arg, describe(t));
}

int64_t resolve_padding_idx(std::optional<int64_t> padding_idx, const Tensor& weight,
                            const char* op) {
  if (!padding_idx) return -1;
  const int64_t v = weight.size(0), p = *padding_idx;
  EMBER_CHECK_VALUE(p >= -v && p < v,
                    "{}: padding_idx {} is out of range for weight {}: it must be within "
                    "num_embeddings, in [{}, {})",
                    op, p, describe(weight), -v, v);
  return p < 0 ? p + v : p;
}

Tensor host_indices(const Tensor& input, const Tensor& weight, const char* op) {
  Tensor idx = input.to(Device(kCPU), kLong).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel(), v = weight.size(0);
  // One branch-free pass for the common case; the slow scan only runs to name the offender.
  int64_t lo = 0, hi = 0;
  for (int64_t k = 0; k < n; ++k) {
    lo = std::min(lo, p[k]);
    hi = std::max(hi, p[k]);
  }
  if (lo < 0 || hi >= v)
    for (int64_t k = 0; k < n; ++k)
      EMBER_CHECK_INDEX(p[k] >= 0 && p[k] < v,
                        "{}: index {} at position {} is out of range for weight {}. Hint: "
                        "indices must be in [0, num_embeddings) = [0, {})",
                        op, p[k], k, describe(weight), v);
  return idx;
}

// Sort once, then look each index up: O(n log n) whatever the table size.
std::vector<int64_t> index_counts(const int64_t* idx, int64_t n) {
  std::vector<int64_t> sorted(idx, idx + n);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> counts(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    auto range = std::equal_range(sorted.begin(), sorted.end(), idx[k]);
    counts[k] = range.second - range.first;
  }
  return counts;
}

}  // namespace emb

namespace detail {

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                 bool sparse) {
  const char* op = "embedding";
  emb::check_table(weight, op);
  emb::check_indices(input, op, "input");
  EMBER_CHECK(!sparse,
              "embedding: sparse=true is not supported: Ember has no sparse tensors. Hint: use "
              "sparse(false); the gradient is then a dense [num_embeddings, embedding_dim] "
              "tensor");
  const int64_t padding = emb::resolve_padding_idx(padding_idx, weight, op);
  const Tensor host = emb::host_indices(input, weight, op).view({-1});
  if (max_norm) emb::renorm_rows(weight, host, *max_norm, norm_type);
  // Per-lookup gradient coefficients, only when some lookup does not keep its full gradient.
  const int64_t n = host.numel();
  const int64_t* idx = host.data_ptr<int64_t>();
  Tensor coef;
  if (autograd::needs_grad(weight) &&
      (scale_grad_by_freq || (padding >= 0 && std::find(idx, idx + n, padding) != idx + n))) {
    std::vector<double> c(static_cast<size_t>(n), 1.0);
    if (scale_grad_by_freq) {
      const std::vector<int64_t> counts = emb::index_counts(idx, n);
      for (int64_t k = 0; k < n; ++k) c[k] = 1.0 / static_cast<double>(counts[k]);
    }
    for (int64_t k = 0; k < n; ++k)
      if (idx[k] == padding) c[k] = 0.0;
    coef = emb::doubles_on_device(weight, c);
  }
  DimVector sizes(input.sizes());
  sizes.push_back(weight.size(1));
  const Tensor dev_idx = weight.is_cpu() ? host : host.to(weight.device());
  return emb::lookup_rows(weight, dev_idx, coef).view(sizes);
}

}  // namespace detail

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  return detail::embedding(input, weight, o.padding_idx(), o.max_norm(), o.norm_type(),
                           o.scale_grad_by_freq(), o.sparse());
}

}  // namespace ember::nn::functional
