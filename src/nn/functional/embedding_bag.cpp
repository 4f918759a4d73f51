// F::embedding_bag: sums, means or maxes of bags of table rows. Sum and mean run as one recorded
// op: the CPU row kernel adds each bag's (weighted) rows straight into the output without
// materialising them, and the backward scatters each bag's gradient row into the table rows of
// its entries (kernels/cpu/embedding_kernels.h); max finds each (bag, feature)'s winning row and
// gathers it, so gather's gradient routes back to that row.
#include <algorithm>
#include <variant>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/embedding.h"
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
namespace {

using layer::describe;

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
    emb::check_indices(offsets, "embedding_bag", "offsets");
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
  Tensor vals =
      index_select(weight.detach(), 0, emb::to_device_of(emb::host_tensor(looked_up), weight))
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

// The entries of sum/mean bags, laid out bag by bag: entry e looks up row idx[e] for bag
// bag_of[e] and comes from input position pos[e]; bag b holds entries [begin[b], end[b]).
struct BagEntries {
  Tensor idx, bag_of, pos;  // int64 CPU
  std::vector<int64_t> begin, end;
};

// Per-entry sample weights: psw at the positions taking part (all of them: psw itself).
Tensor entry_weights(const Tensor& psw, const Tensor& pos, bool all_positions) {
  Tensor flat = psw.reshape({-1});
  return all_positions ? flat : flat.index_select(0, emb::to_device_of(pos, psw));
}

// Σ (psw·)rows per bag (/ count for mean), recorded with the scatter backward. freq: per-entry
// 1/count (scale_grad_by_freq) or undefined; div: per-bag divisors (mean) or undefined.
Tensor bag_sum(const Tensor& weight, const Tensor& psw, const BagEntries& e, const Tensor& freq,
               const Tensor& div, bool all_positions) {
  const int64_t nb = static_cast<int64_t>(e.begin.size()), d = weight.size(1);
  const int64_t m = e.idx.numel();
  autograd::OpRecording rec(weight, psw);
  Tensor out;
  if (weight.is_cpu()) {
    const Tensor w = weight.contiguous();
    const Tensor pe =
        psw.defined() ? entry_weights(psw, e.pos, all_positions).contiguous() : Tensor();
    out = empty({nb, d}, w.options());
    if (out.numel() > 0)
      kernels::cpu_bag_sum_rows(w.dtype(), w.data_ptr(), d, e.idx.data_ptr<int64_t>(),
                                e.begin.data(), e.end.data(), nb,
                                pe.defined() ? pe.data_ptr() : nullptr,
                                div.defined() ? div.data_ptr<double>() : nullptr, out.data_ptr());
  } else {
    Tensor rows = index_select(weight, 0, emb::to_device_of(e.idx, weight));
    if (psw.defined()) rows = rows * entry_weights(psw, e.pos, all_positions).unsqueeze(1);
    out = zeros({nb, d}, weight.options()).index_add(0, emb::to_device_of(e.bag_of, weight), rows);
    if (div.defined()) out = out / div.to(weight.device(), weight.dtype()).unsqueeze(1);
  }
  if (rec)
    autograd::record(
        "EmbeddingBagBackward0", out, autograd::edges_of(weight, psw),
        [w = autograd::save(weight), p = autograd::save(psw), e, freq, div, m, num = weight.size(0),
         all_positions](const Tensor& grad, autograd::NeedsGrad needs) -> autograd::Grads {
          autograd::Grads g(2);
          const Tensor ws = w.unpack(), ps = p.unpack();
          if (needs[0]) {
            // Each entry's gradient coefficient: its sample weight, 1/count, 1/bag size.
            Tensor coef;
            if (freq.defined() || div.defined()) {
              coef = freq.defined() ? freq : ones({m}, kDouble);
              if (div.defined()) coef = coef / div.index_select(0, e.bag_of);
            }
            if (ps.defined()) {
              Tensor pe = entry_weights(ps, e.pos, all_positions);
              // Recorded with create_graph; plain float64 numbers for the row kernel otherwise.
              if (!GradMode::is_enabled()) pe = pe.to(Device(kCPU), kDouble);
              coef = coef.defined() ? pe * coef.to(pe.device(), pe.dtype()) : pe;
            }
            g[0] = emb::scatter_rows(grad, e.idx, e.bag_of, coef, num, ws.dtype());
          }
          if (needs[1] && ps.defined()) {
            // d out[b] / d psw[k] = weight[idx[k]]: one dot product per entry.
            Tensor per = (grad.index_select(0, emb::to_device_of(e.bag_of, grad)) *
                          ws.index_select(0, emb::to_device_of(e.idx, ws)))
                             .sum({1});
            g[1] = zeros({ps.numel()}, per.options())
                       .index_add(0, emb::to_device_of(e.pos, per), per)
                       .view(ps.sizes());
          }
          return g;
        });
  return out;
}

}  // namespace

namespace detail {

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                     std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                     EmbeddingBagMode mode, bool sparse, const Tensor& per_sample_weights,
                     bool include_last_offset, std::optional<int64_t> padding_idx) {
  const char* op = "embedding_bag";
  emb::check_table(weight, op);
  emb::check_indices(input, op, "input");
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
  const int64_t padding = emb::resolve_padding_idx(padding_idx, weight, op);
  const Bags bags = bags_of(input, offsets, include_last_offset);
  const int64_t nb = bags.count();
  Tensor host = emb::host_indices(input, weight, op).view({-1});
  if (max_norm) emb::renorm_rows(weight, host, *max_norm, norm_type);
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
    Tensor out = gather(weight, 0, emb::to_device_of(arg, weight));
    if (std::find(empty.begin(), empty.end(), 1) == empty.end()) return out;
    Tensor empty_mask = zeros({nb, 1}, TensorOptions().dtype(kBool));
    std::copy(empty.begin(), empty.end(), empty_mask.data_ptr<bool>());
    return out.masked_fill(emb::to_device_of(empty_mask, weight), 0);
  }

  // Sum and mean: one recorded op over the entries.
  const int64_t m = static_cast<int64_t>(entries.size());
  BagEntries e;
  std::vector<int64_t> looked_up(static_cast<size_t>(m));
  for (int64_t k = 0; k < m; ++k) looked_up[k] = idx[entries[k]];
  e.idx = emb::host_tensor(looked_up);
  e.bag_of = emb::host_tensor(bag_of);
  e.pos = emb::host_tensor(entries);
  e.begin.assign(static_cast<size_t>(nb), 0);
  e.end.assign(static_cast<size_t>(nb), 0);
  for (int64_t k = 0, b = 0; b < nb; ++b) {
    e.begin[b] = k;
    k += static_cast<int64_t>(counts[b]);
    e.end[b] = k;
  }
  Tensor freq;
  if (scale_grad_by_freq) {
    // Frequencies count every index of the input, as PyTorch's.
    const std::vector<int64_t> all = emb::index_counts(idx, host.numel());
    std::vector<double> f(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) f[k] = 1.0 / static_cast<double>(all[entries[k]]);
    freq = emb::host_doubles(f);
  }
  Tensor div;
  if (is_mean) {
    for (double& c : counts) c = std::max(c, 1.0);
    div = emb::host_doubles(counts);
  }
  return bag_sum(weight, psw, e, freq, div, /*all_positions=*/m == host.numel());
}

}  // namespace detail

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  return detail::embedding_bag(input, weight, o.offsets(), o.max_norm(), o.norm_type(),
                               o.scale_grad_by_freq(), o.mode(), o.sparse(), o.per_sample_weights(),
                               o.include_last_offset(), o.padding_idx());
}

}  // namespace ember::nn::functional
