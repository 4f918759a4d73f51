// F::embedding and the lookup/scatter helpers it shares with F::embedding_bag. A lookup is a row
// gather whose recorded backward adds each gradient row into its table row (so repeated indices
// add up), times a per-lookup coefficient: 0 for padding_idx, 1/count for scale_grad_by_freq.
// On the CPU both directions are row kernels (kernels/cpu/embedding_kernels.h); elsewhere, and
// for double backward, they are index_select and index_add.
#include "ember/nn/functional/embedding.h"

#include <algorithm>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "kernels/cpu/embedding_kernels.h"
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

Tensor host_tensor(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kLong));
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

Tensor host_doubles(const std::vector<double>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kDouble));
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t;
}

Tensor to_device_of(const Tensor& host, const Tensor& like) {
  return like.is_cpu() ? host : host.to(like.device());
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

// The scale is computed in double from the row's norm (PyTorch's 1e-7 guard included), then
// applied in the weight's dtype, as PyTorch's embedding_renorm_.
void renorm_rows(const Tensor& weight, const Tensor& host_idx, double max_norm, double norm_type) {
  NoGradGuard no_grad;
  const int64_t* p = host_idx.data_ptr<int64_t>();
  std::vector<int64_t> uniq(p, p + host_idx.numel());
  std::sort(uniq.begin(), uniq.end());
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  if (uniq.empty()) return;
  Tensor w = weight.detach();
  Tensor rows_idx = to_device_of(host_tensor(uniq), weight);
  Tensor rows = w.index_select(0, rows_idx);
  Tensor norms = rows.norm(norm_type, {1}, true).to(Device(kCPU), kDouble).contiguous();
  const double* nrm = norms.data_ptr<double>();
  std::vector<int64_t> over;
  std::vector<double> scales;
  for (size_t i = 0; i < uniq.size(); ++i) {
    if (nrm[i] > max_norm) {
      over.push_back(static_cast<int64_t>(i));
      scales.push_back(max_norm / (nrm[i] + 1e-7));
    }
  }
  if (over.empty()) return;
  Tensor sel = to_device_of(host_tensor(over), weight);
  Tensor scale = host_doubles(scales).to(weight.device(), weight.dtype());
  Tensor target = rows_idx.index_select(0, sel);
  w.index_put_({TensorIndex(target)}, rows.index_select(0, sel) * scale.unsqueeze(1));
}

Tensor scatter_rows(const Tensor& src, const Tensor& idx, const Tensor& src_row, const Tensor& coef,
                    int64_t num_rows, ScalarType dtype) {
  const int64_t d = src.size(1);
  if (GradMode::is_enabled() || !src.is_cpu()) {
    // Differentiable in src (create_graph), and the path for other devices.
    Tensor g = src_row.defined() ? src.index_select(0, to_device_of(src_row, src)) : src;
    if (coef.defined()) g = g * coef.to(src.device(), src.dtype()).unsqueeze(1);
    return zeros({num_rows, d}, src.options()).index_add(0, to_device_of(idx, src), g);
  }
  // float16/bfloat16 gradients are summed in float32 and rounded once.
  const ScalarType acc = src.dtype() == kDouble ? kDouble : kFloat;
  Tensor s = src.to(acc).contiguous();
  Tensor out = zeros({num_rows, d}, TensorOptions().dtype(acc));
  kernels::cpu_scatter_add_rows(acc, out.data_ptr(), num_rows, d, s.data_ptr(),
                                idx.data_ptr<int64_t>(),
                                src_row.defined() ? src_row.data_ptr<int64_t>() : nullptr,
                                coef.defined() ? coef.data_ptr<double>() : nullptr, idx.numel());
  return out.dtype() == dtype ? out : out.to(dtype);
}

Tensor lookup_rows(const Tensor& weight, const Tensor& host_idx, const Tensor& coef) {
  const int64_t n = host_idx.numel(), d = weight.size(1);
  autograd::OpRecording rec(weight);
  Tensor rows;
  if (weight.is_cpu()) {
    const Tensor w = weight.contiguous();
    rows = empty({n, d}, w.options());
    if (n > 0 && d > 0)
      kernels::cpu_gather_rows(w.dtype(), w.data_ptr(), d, host_idx.data_ptr<int64_t>(), n,
                               rows.data_ptr());
  } else {
    rows = index_select(weight, 0, to_device_of(host_idx, weight));
  }
  if (rec)
    autograd::record("EmbeddingBackward0", rows, autograd::edges_of(weight),
                     [idx = autograd::save(host_idx), coef, num = weight.size(0),
                      dtype = weight.dtype()](const Tensor& grad) {
                       return scatter_rows(grad, idx.unpack(), Tensor(), coef, num, dtype);
                     });
  return rows;
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
  const bool has_padding = padding >= 0 && std::find(idx, idx + n, padding) != idx + n;
  if (has_padding || scale_grad_by_freq) {
    std::vector<double> c(static_cast<size_t>(n), 1.0);
    if (scale_grad_by_freq) {
      const std::vector<int64_t> counts = emb::index_counts(idx, n);
      for (int64_t k = 0; k < n; ++k) c[k] = 1.0 / static_cast<double>(counts[k]);
    }
    for (int64_t k = 0; k < n; ++k)
      if (idx[k] == padding) c[k] = 0.0;
    coef = emb::host_doubles(c);
  }
  DimVector sizes(input.sizes());
  sizes.push_back(weight.size(1));
  return emb::lookup_rows(weight, host, coef).view(sizes);
}

}  // namespace detail

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  return detail::embedding(input, weight, o.padding_idx(), o.max_norm(), o.norm_type(),
                           o.scale_grad_by_freq(), o.sparse());
}

}  // namespace ember::nn::functional
