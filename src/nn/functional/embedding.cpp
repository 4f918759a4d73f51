// F::embedding and F::embedding_bag. Lookups are index_select, bag reductions index_add (or a
// plain sum/mean over [B, L, D] for 2-D input), so autograd adds the gradients of repeated
// indices by itself. Only the gradient-only modifiers (padding_idx, scale_grad_by_freq) need a
// formula of their own: they change the gradient of a lookup but not its value.
#include "ember/nn/functional/embedding.h"

#include <algorithm>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/autograd/record.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional {
namespace {

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

// padding_idx in [0, V), or -1 for none; negative values count from the end, as PyTorch.
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

// The indices as a contiguous int64 CPU tensor, each checked against [0, num_embeddings).
Tensor host_indices(const Tensor& input, const Tensor& weight, const char* op) {
  Tensor idx = input.to(Device(kCPU), kLong).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel(), v = weight.size(0);
  for (int64_t k = 0; k < n; ++k)
    EMBER_CHECK_INDEX(p[k] >= 0 && p[k] < v,
                      "{}: index {} at position {} is out of range for weight {}. Hint: indices "
                      "must be in [0, num_embeddings) = [0, {})",
                      op, p[k], k, describe(weight), v);
  return idx;
}

Tensor to_device_of(const Tensor& host, const Tensor& like) {
  return like.is_cpu() ? host : host.to(like.device());
}

Tensor host_tensor(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kLong));
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

// Host doubles as a tensor with weight's dtype and device.
Tensor values_like(const std::vector<double>& v, const Tensor& weight) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kDouble));
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t.to(weight.device(), weight.dtype());
}

// How often each position's index occurs among `idx` (for scale_grad_by_freq): sort once, then
// look each index up, O(n log n) whatever the table size.
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

// embedding_renorm_: rescales, in place and unrecorded, each distinct row of weight that `idx`
// looks up and whose norm exceeds max_norm, to norm max_norm (PyTorch's 1e-7 guard included).
// The scale is computed in double from the row's norm, then applied in the weight's dtype.
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
  Tensor scale = values_like(scales, weight);
  Tensor target = rows_idx.index_select(0, sel);
  w.index_put_({TensorIndex(target)}, rows.index_select(0, sel) * scale.unsqueeze(1));
}

// weight[idx] ([n, D]). When grad_scale is defined, the gradient of lookup k is multiplied by
// grad_scale[k] (0 for padding, 1/count for scale_grad_by_freq) before it is added into its row.
Tensor lookup_rows(const Tensor& weight, const Tensor& idx, const Tensor& grad_scale) {
  if (!grad_scale.defined()) return index_select(weight, 0, idx);
  autograd::OpRecording rec(weight);
  Tensor rows = index_select(weight, 0, idx);
  if (rec)
    autograd::record(
        "EmbeddingBackward0", rows, autograd::edges_of(weight),
        [idx = autograd::save(idx), scale = autograd::save(grad_scale),
         num = weight.size(0)](const Tensor& grad) {
          Tensor g = grad * scale.unpack().unsqueeze(1);
          return zeros({num, grad.size(1)}, grad.options()).index_add(0, idx.unpack(), g);
        });
  return rows;
}

// The per-lookup gradient scale (undefined when every lookup keeps its full gradient).
Tensor grad_scale_of(const int64_t* idx, int64_t n, int64_t padding, bool by_freq,
                     const Tensor& weight) {
  bool has_padding = false;
  for (int64_t k = 0; k < n && padding >= 0 && !has_padding; ++k) has_padding = idx[k] == padding;
  if (!has_padding && !by_freq) return Tensor();
  std::vector<double> s(static_cast<size_t>(n), 1.0);
  if (by_freq) {
    std::vector<int64_t> counts = index_counts(idx, n);
    for (int64_t k = 0; k < n; ++k) s[k] = 1.0 / static_cast<double>(counts[k]);
  }
  for (int64_t k = 0; k < n; ++k)
    if (idx[k] == padding) s[k] = 0.0;
  return values_like(s, weight);
}

const char* mode_name(const EmbeddingBagMode& mode) {
  if (std::holds_alternative<enumtype::kSum>(mode)) return "kSum";
  if (std::holds_alternative<enumtype::kMean>(mode)) return "kMean";
  return "kMax";
}

// Where each bag starts and ends in the flattened input: bag b is [begin[b], end[b]).
struct Bags {
  std::vector<int64_t> begin, end;
  int64_t count() const { return static_cast<int64_t>(begin.size()); }
};

Bags bags_of(const Tensor& input, const Tensor& offsets, bool include_last_offset) {
  const int64_t n = input.numel();
  std::vector<int64_t> offs;
  if (input.dim() == 2) {
    EMBER_CHECK_VALUE(!offsets.defined(),
                      "embedding_bag: offsets must be undefined for a 2-D input {}, which holds "
                      "one bag per row, but got offsets {}. Hint: flatten the input to 1-D to "
                      "use offsets",
                      describe(input), describe(offsets));
    // PyTorch builds offsets 0, L, 2L, ... for a 2-D input and then applies include_last_offset
    // to them as to user offsets; so do we.
    for (int64_t b = 0; b < input.size(0); ++b) offs.push_back(b * input.size(1));
  } else {
    EMBER_CHECK_VALUE(offsets.defined(),
                      "embedding_bag: a 1-D input {} needs offsets (where each bag starts). "
                      "Hint: pass F::EmbeddingBagFuncOptions().offsets(...), or a 2-D [B, L] "
                      "input",
                      describe(input));
    check_indices(offsets, "embedding_bag", "offsets");
    EMBER_CHECK_VALUE(offsets.dim() == 1, "embedding_bag: offsets must be 1-D [B], but got {}",
                      describe(offsets));
    Tensor h = offsets.to(Device(kCPU), kLong).contiguous();
    offs.assign(h.data_ptr<int64_t>(), h.data_ptr<int64_t>() + h.numel());
    if (!offs.empty())
      EMBER_CHECK_VALUE(offs[0] == 0,
                        "embedding_bag: offsets[0] has to be 0 (the first bag starts at the "
                        "start of the input), but got {}",
                        offs[0]);
    for (size_t b = 1; b < offs.size(); ++b)
      EMBER_CHECK_VALUE(offs[b] >= offs[b - 1],
                        "embedding_bag: offsets must be non-decreasing, but offsets[{}] = {} < "
                        "offsets[{}] = {}",
                        b, offs[b], b - 1, offs[b - 1]);
    if (!offs.empty())
      EMBER_CHECK_VALUE(offs.back() <= n,
                        "embedding_bag: offsets[-1] = {} is greater than the input's length {}",
                        offs.back(), n);
  }
  Bags bags;
  const size_t count = include_last_offset ? (offs.empty() ? 0 : offs.size() - 1) : offs.size();
  for (size_t b = 0; b < count; ++b) {
    bags.begin.push_back(offs[b]);
    bags.end.push_back(b + 1 < offs.size() ? offs[b + 1] : n);
  }
  return bags;
}

// Per (bag, feature), the row holding the bag's largest value (the first one on ties, as
// PyTorch), found on a float64 copy of the looked-up rows. `entries` lists the positions taking
// part, bag by bag, and `bag_of` their bags; empty bags are flagged in `empty`.
Tensor max_rows(const Tensor& weight, const int64_t* idx, const std::vector<int64_t>& entries,
                const std::vector<int64_t>& bag_of, int64_t nb, std::vector<uint8_t>& empty) {
  const int64_t d = weight.size(1);
  std::vector<int64_t> looked_up(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) looked_up[e] = idx[entries[e]];
  Tensor vals = index_select(weight.detach(), 0, to_device_of(host_tensor(looked_up), weight))
                    .to(Device(kCPU), kDouble)
                    .contiguous();
  const double* v = vals.data_ptr<double>();
  Tensor arg = zeros({nb, d}, TensorOptions().dtype(kLong));
  int64_t* a = arg.data_ptr<int64_t>();
  empty.assign(static_cast<size_t>(nb), 1);
  std::vector<double> best(static_cast<size_t>(nb * d));
  for (size_t e = 0; e < entries.size(); ++e) {
    const int64_t b = bag_of[e];
    const double* row = v + static_cast<int64_t>(e) * d;
    for (int64_t j = 0; j < d; ++j) {
      if (empty[b] || row[j] > best[b * d + j]) {
        best[b * d + j] = row[j];
        a[b * d + j] = looked_up[e];
      }
    }
    empty[b] = 0;
  }
  return arg;
}

}  // namespace

namespace detail {

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                 bool sparse) {
  const char* op = "embedding";
  check_table(weight, op);
  check_indices(input, op, "input");
  EMBER_CHECK(!sparse,
              "embedding: sparse=true is not supported: Ember has no sparse tensors. Hint: use "
              "sparse(false); the gradient is then a dense [num_embeddings, embedding_dim] "
              "tensor");
  const int64_t padding = resolve_padding_idx(padding_idx, weight, op);
  Tensor host = host_indices(input, weight, op);
  if (max_norm) renorm_rows(weight, host, *max_norm, norm_type);
  Tensor idx = to_device_of(host.view({-1}), weight);
  Tensor scale =
      grad_scale_of(host.data_ptr<int64_t>(), host.numel(), padding, scale_grad_by_freq, weight);
  DimVector sizes(input.sizes());
  sizes.push_back(weight.size(1));
  return lookup_rows(weight, idx, scale).view(sizes);
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                     std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                     EmbeddingBagMode mode, bool sparse, const Tensor& per_sample_weights,
                     bool include_last_offset, std::optional<int64_t> padding_idx) {
  const char* op = "embedding_bag";
  check_table(weight, op);
  check_indices(input, op, "input");
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2,
                    "embedding_bag: input must be 1-D [n] (with offsets) or 2-D [B, L], but got "
                    "{}",
                    describe(input));
  EMBER_CHECK(!sparse,
              "embedding_bag: sparse=true is not supported: Ember has no sparse tensors. Hint: "
              "use sparse(false)");
  const bool is_max = std::holds_alternative<enumtype::kMax>(mode);
  const bool is_mean = std::holds_alternative<enumtype::kMean>(mode);
  EMBER_CHECK_VALUE(!(is_max && scale_grad_by_freq),
                    "embedding_bag: mode kMax does not support scale_grad_by_freq");
  const Tensor& psw = per_sample_weights;
  if (psw.defined()) {
    EMBER_CHECK(std::holds_alternative<enumtype::kSum>(mode),
                "embedding_bag: per_sample_weights is only supported for mode kSum, but got "
                "mode {}. Hint: use mode(ember::kSum)",
                mode_name(mode));
    EMBER_CHECK_VALUE(psw.sizes() == input.sizes(),
                      "embedding_bag: per_sample_weights {} must have the same shape as the "
                      "input {}",
                      describe(psw), describe(input));
    EMBER_CHECK_TYPE(psw.dtype() == weight.dtype(),
                     "embedding_bag: per_sample_weights {} must have the dtype of weight {}",
                     describe(psw), describe(weight));
  }
  const int64_t padding = resolve_padding_idx(padding_idx, weight, op);
  const Bags bags = bags_of(input, offsets, include_last_offset);
  const int64_t nb = bags.count(), dim = weight.size(1);
  Tensor host = host_indices(input, weight, op).view({-1});
  if (max_norm) renorm_rows(weight, host, *max_norm, norm_type);
  const int64_t* idx = host.data_ptr<int64_t>();

  // The positions that take part (inside a bag, not padding), bag by bag.
  std::vector<int64_t> entries, bag_of;
  std::vector<double> counts(static_cast<size_t>(nb), 0.0);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t k = bags.begin[b]; k < bags.end[b]; ++k)
      if (idx[k] != padding) {
        entries.push_back(k);
        bag_of.push_back(b);
        counts[b] += 1;
      }

  if (is_max) {
    std::vector<uint8_t> empty;
    Tensor arg = max_rows(weight, idx, entries, bag_of, nb, empty);
    // gather's gradient scatters each (bag, feature) back into the row that won it.
    Tensor out = gather(weight, 0, to_device_of(arg, weight));
    if (std::find(empty.begin(), empty.end(), 1) == empty.end()) return out;
    Tensor empty_mask = zeros({nb, 1}, TensorOptions().dtype(kBool));
    std::copy(empty.begin(), empty.end(), empty_mask.data_ptr<bool>());
    return out.masked_fill(to_device_of(empty_mask, weight), 0);
  }

  const int64_t m = static_cast<int64_t>(entries.size());
  std::vector<int64_t> looked_up(static_cast<size_t>(m));
  for (int64_t k = 0; k < m; ++k) looked_up[k] = idx[entries[k]];
  Tensor scale;
  if (scale_grad_by_freq) {
    // Frequencies count every index of the input, as PyTorch's.
    std::vector<int64_t> all = index_counts(idx, host.numel());
    std::vector<double> s(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) s[k] = 1.0 / static_cast<double>(all[entries[k]]);
    scale = values_like(s, weight);
  }
  Tensor rows = lookup_rows(weight, to_device_of(host_tensor(looked_up), weight), scale);
  if (psw.defined()) {
    Tensor w = psw.reshape({-1});
    if (m != psw.numel()) w = w.index_select(0, to_device_of(host_tensor(entries), weight));
    rows = rows * w.unsqueeze(1);
  }
  // float16/bfloat16 bags add up in float32 (PyTorch's opmath) and round once.
  const bool low = weight.dtype() == kHalf || weight.dtype() == kBFloat16;
  if (low) rows = rows.to(kFloat);
  Tensor out = zeros({nb, dim}, rows.options())
                   .index_add(0, to_device_of(host_tensor(bag_of), weight), rows);
  if (is_mean) {
    for (double& c : counts) c = std::max(c, 1.0);
    out = out / values_like(counts, out).unsqueeze(1);
  }
  return low ? out.to(weight.dtype()) : out;
}

}  // namespace detail

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  return detail::embedding(input, weight, o.padding_idx(), o.max_norm(), o.norm_type(),
                           o.scale_grad_by_freq(), o.sparse());
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  return detail::embedding_bag(input, weight, o.offsets(), o.max_norm(), o.norm_type(),
                               o.scale_grad_by_freq(), o.mode(), o.sparse(), o.per_sample_weights(),
                               o.include_last_offset(), o.padding_idx());
}

}  // namespace ember::nn::functional
