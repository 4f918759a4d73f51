// F::embedding_bag: sums, means or maxes of bags of table rows, each one recorded op through the
// weight device's `embedding_bag` kernel: sum and mean add each bag's (weighted) rows straight
// into the output without materialising them, and their backward scatters each bag's gradient row
// into the table rows of its entries; max also returns, per (bag, feature), the row that won, and
// its backward scatters each gradient element into that row. The bags are laid out on the host
// (the indices are read there for their checks) and their entry arrays moved to the weight's
// device in one copy.
#include <algorithm>
#include <utility>
#include <variant>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/embedding.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "kernels/common/embedding_params.h"
#include "src/autograd/record.h"
#include "src/dispatch/dispatch.h"
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

// The entries of the bags (the input positions inside a bag that are not padding), bag by bag, on
// the weight's device: entry k looks up row idx[k] for bag bag_of[k] and comes from input position
// pos[k]; bag b holds entries [start[b], start[b + 1]). bag_of and pos are only there when
// something needs them.
struct Entries {
  Tensor idx, start, bag_of, pos;  // int64
  int64_t bags = 0;
  bool all_positions = false;  // every input position takes part, in order: pos[k] == k
};

// src[idx]: recorded when it has to be (create_graph), through the row kernel otherwise.
Tensor rows_at(const Tensor& src, const Tensor& idx) {
  return GradMode::is_enabled() && src.requires_grad() ? src.index_select(0, idx)
                                                       : emb::gather_rows(src, idx);
}

// Per-entry sample weights [m]: psw at the positions taking part.
Tensor entry_weights(const Tensor& psw, const Entries& e) {
  const Tensor flat = psw.reshape({-1});
  return e.all_positions ? flat : rows_at(flat.view({-1, 1}), e.pos).view({-1});
}

BagSumRowsParams bag_params(const Tensor& w, const Entries& e, const Tensor& out) {
  BagSumRowsParams p;
  p.table = w.data_ptr();
  p.d = w.size(1);
  p.idx = e.idx.data_ptr<int64_t>();
  p.bag_start = e.start.data_ptr<int64_t>();
  p.bags = e.bags;
  p.out = out.data_ptr();
  return p;
}

// Σ (psw·)rows per bag (/ div[b] for mean), recorded with the scatter backward. coef: each entry's
// gradient coefficient besides its sample weight (1/count for scale_grad_by_freq, 1/bag size for
// mean; float64) or undefined; div: per-bag divisors (float64) or undefined.
Tensor bag_sum(const Tensor& weight, const Tensor& psw, const Entries& e, const Tensor& coef,
               const Tensor& div) {
  autograd::OpRecording rec(weight, psw);
  const Tensor w = weight.contiguous();
  Tensor out = empty({e.bags, w.size(1)}, w.options());
  if (out.numel() > 0) {
    const Tensor pe = psw.defined() ? entry_weights(psw, e).contiguous() : Tensor();
    BagSumRowsParams p = bag_params(w, e, out);
    p.w = pe.defined() ? pe.data_ptr() : nullptr;
    p.div = div.defined() ? div.data_ptr<double>() : nullptr;
    get_kernel<OpId::embedding_bag>(w.device().type(), w.dtype())(w.dtype(), p);
  }
  if (rec)
    autograd::record(
        "EmbeddingBagBackward0", out, autograd::edges_of(weight, psw),
        [w = autograd::save(weight), p = autograd::save(psw), e, coef, num = weight.size(0)](
            const Tensor& grad, autograd::NeedsGrad needs) -> autograd::Grads {
          autograd::Grads g(2);
          const Tensor ws = w.unpack(), ps = p.unpack();
          if (needs[0]) {
            Tensor c = coef;
            if (ps.defined()) {
              Tensor pe = entry_weights(ps, e);
              // Recorded with create_graph; plain float64 numbers for the row kernel otherwise.
              if (!GradMode::is_enabled()) pe = pe.to(kDouble);
              c = c.defined() ? pe * c.to(pe.dtype()) : pe;
            }
            g[0] = emb::scatter_rows(grad, e.idx, e.bag_of, c, num, ws.dtype());
          }
          if (needs[1] && ps.defined()) {
            // d out[b] / d psw[k] = weight[idx[k]]: one dot product per entry.
            const Tensor per = (rows_at(grad, e.bag_of) * rows_at(ws, e.idx)).sum({1});
            g[1] = e.all_positions ? per.view(ps.sizes())
                                   : emb::scatter_rows(per.view({-1, 1}), e.pos, Tensor(), Tensor(),
                                                       ps.numel(), ps.dtype())
                                         .view(ps.sizes());
          }
          return g;
        });
  return out;
}

// Per (bag, feature) the largest value of the bag's rows and the row holding it, recorded with a
// backward that sends each gradient element to that row's element. nonempty: [B, 1] bool on the
// weight's device when some bag is empty (its gradient goes nowhere), else undefined.
std::pair<Tensor, Tensor> bag_max(const Tensor& weight, const Entries& e, const Tensor& nonempty) {
  autograd::OpRecording rec(weight);
  const Tensor w = weight.contiguous();
  const int64_t d = w.size(1);
  Tensor out = empty({e.bags, d}, w.options());
  Tensor arg = empty({e.bags, d}, w.options().dtype(kLong));
  if (out.numel() > 0) {
    BagSumRowsParams p = bag_params(w, e, out);
    p.mode = BagSumRowsParams::Mode::Max;
    p.arg = arg.data_ptr<int64_t>();
    get_kernel<OpId::embedding_bag>(w.device().type(), w.dtype())(w.dtype(), p);
  }
  if (rec)
    autograd::record(
        "EmbeddingBagBackward0", out, autograd::edges_of(weight),
        [arg, nonempty, num = w.size(0), d, dtype = w.dtype()](const Tensor& grad) {
          const Tensor g = nonempty.defined() ? where(nonempty, grad, Scalar(0)) : grad;
          // Element (b, j) lands at flat position arg[b, j]·D + j of the table.
          const Tensor flat = (arg * d + arange(d, arg.options())).view({-1});
          return emb::scatter_rows(g.reshape({-1, 1}), flat, Tensor(), Tensor(), num * d, dtype)
              .view({num, d});
        });
  return {out, arg};
}

// v as an int64 tensor on like's device.
Tensor longs_like(const std::vector<int64_t>& v, const Tensor& like) {
  Tensor host = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kLong));
  std::copy(v.begin(), v.end(), host.data_ptr<int64_t>());
  return like.is_cpu() ? host : host.to(like.device());
}

}  // namespace

namespace emb {

BagOutputs embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                         const EmbeddingBagMode& mode, bool sparse,
                         const Tensor& per_sample_weights, bool include_last_offset,
                         std::optional<int64_t> padding_idx, bool bookkeeping) {
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
    EMBER_CHECK(psw.device() == weight.device(),
                "embedding_bag: per_sample_weights {} is on {} but weight {} is on {}. Hint: "
                "move them to the same device",
                describe(psw), psw.device(), describe(weight), weight.device());
  }
  const int64_t padding = emb::resolve_padding_idx(padding_idx, weight, op);
  const Bags bags = bags_of(input, offsets, include_last_offset);
  const int64_t nb = bags.count();
  const Tensor host = emb::host_indices(input, weight, op).view({-1});
  if (max_norm) emb::renorm_rows(weight, host, *max_norm, norm_type);
  const int64_t n = host.numel();
  const int64_t* idx = host.data_ptr<int64_t>();

  // The positions that take part (inside a bag, not padding), bag by bag.
  std::vector<int64_t> pos, looked_up, bag_of, start(static_cast<size_t>(nb) + 1, 0);
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t k = bags.begin[b]; k < bags.end[b]; ++k)
      if (idx[k] != padding) {
        pos.push_back(k);
        looked_up.push_back(idx[k]);
        bag_of.push_back(b);
      }
    start[b + 1] = static_cast<int64_t>(pos.size());
  }
  const int64_t m = static_cast<int64_t>(pos.size());
  const bool grad_w = autograd::needs_grad(weight);
  Entries e;
  e.bags = nb;
  // Bags run back to back from position 0, so m == n means every position, in order.
  e.all_positions = m == n;
  const std::vector<int64_t> none;
  const bool want_bag_of = !is_max && autograd::needs_grad(weight, psw);
  const bool want_pos = psw.defined() && !e.all_positions;
  const std::vector<Tensor> dev = emb::int64_on_device(
      weight, {&looked_up, &start, want_bag_of ? &bag_of : &none, want_pos ? &pos : &none});
  e.idx = dev[0];
  e.start = dev[1];
  if (want_bag_of) e.bag_of = dev[2];
  if (want_pos) e.pos = dev[3];

  BagOutputs r;
  if (is_max) {
    Tensor nonempty;
    if (grad_w && std::adjacent_find(start.begin(), start.end()) != start.end()) {
      Tensor mask = empty({nb, 1}, TensorOptions().dtype(kBool));
      bool* mk = mask.data_ptr<bool>();
      for (int64_t b = 0; b < nb; ++b) mk[b] = start[b + 1] > start[b];
      nonempty = weight.is_cpu() ? mask : mask.to(weight.device());
    }
    std::tie(r.output, r.max_indices) = bag_max(weight, e, nonempty);
  } else {
    Tensor coef, div;
    std::vector<double> size;  // mean's divisor per bag
    if (is_mean) {
      size.resize(static_cast<size_t>(nb));
      for (int64_t b = 0; b < nb; ++b)
        size[b] = static_cast<double>(std::max<int64_t>(start[b + 1] - start[b], 1));
      div = emb::doubles_on_device(weight, size);
    }
    if (grad_w && (scale_grad_by_freq || is_mean)) {
      // Frequencies count every index of the input, as PyTorch's.
      const std::vector<int64_t> all =
          scale_grad_by_freq ? emb::index_counts(idx, n) : std::vector<int64_t>();
      std::vector<double> c(static_cast<size_t>(m), 1.0);
      for (int64_t k = 0; k < m; ++k) {
        if (scale_grad_by_freq) c[k] = 1.0 / static_cast<double>(all[pos[k]]);
        if (is_mean) c[k] /= size[bag_of[k]];
      }
      coef = emb::doubles_on_device(weight, c);
    }
    r.output = bag_sum(weight, psw, e, coef, div);
  }
  if (bookkeeping) {
    std::vector<int64_t> offset2bag(static_cast<size_t>(n), 0), bag_size(static_cast<size_t>(nb));
    for (int64_t b = 0; b < nb; ++b) {
      std::fill(offset2bag.begin() + bags.begin[b], offset2bag.begin() + bags.end[b], b);
      bag_size[b] = start[b + 1] - start[b];
    }
    r.offset2bag = longs_like(offset2bag, weight);
    r.bag_size = longs_like(bag_size, weight);
    if (!is_max) r.max_indices = r.bag_size.clone();
  }
  return r;
}

}  // namespace emb

namespace detail {

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                     std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                     EmbeddingBagMode mode, bool sparse, const Tensor& per_sample_weights,
                     bool include_last_offset, std::optional<int64_t> padding_idx) {
  return emb::embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode,
                            sparse, per_sample_weights, include_last_offset, padding_idx,
                            /*bookkeeping=*/false)
      .output;
}

}  // namespace detail

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  return detail::embedding_bag(input, weight, o.offsets(), o.max_norm(), o.norm_type(),
                               o.scale_grad_by_freq(), o.mode(), o.sparse(), o.per_sample_weights(),
                               o.include_last_offset(), o.padding_idx());
}

}  // namespace ember::nn::functional
