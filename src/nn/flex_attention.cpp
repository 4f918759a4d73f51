// flex_attention: validates the arguments, finds the tensors score_mod reads, runs the flex_fused
// row and records one autograd node whose backward is the flex_fused_backward row (gradients of
// q, k, v and of every captured table that requires grad).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/attention/flex_attention.h"
#include "ember/ops/factory.h"
#include "kernels/common/flex_attention_params.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/ops/nn_attention_impl.h"
#include "src/ops/op_common.h"

namespace ember::nn::attention::detail {
namespace {

using ember::detail::as_4d;
using ember::detail::empty_in_layout_of;
using ember::detail::sdpa_accumulation_dtype;
using ember::detail::strides_of;

/// The BlockMask's public fields are the kernel's input: sizes, dtype, layout, device and every
/// block index are checked, so an edited or hand-made mask gets an error, not a wild read.
void check_block_mask(const BlockMask& m) {
  const auto [bq, bk] = m.BLOCK_SIZE;
  const auto [L, S] = m.seq_lengths;
  EMBER_CHECK(bq >= 1 && bk >= 1,
              "flex_attention: BlockMask BLOCK_SIZE must be positive, got ({}, {})", bq, bk);
  EMBER_CHECK(m.mods().mask_f && m.mods().mask_d,
              "flex_attention: the BlockMask has no mask_mod (make it with create_block_mask)");
  const int64_t qb = (L + bq - 1) / bq, kb = (S + bk - 1) / bk;
  const Tensor* tables[] = {&m.kv_num_blocks, &m.kv_indices, &m.full_kv_num_blocks,
                            &m.full_kv_indices};
  for (int i = 0; i < 4; ++i) {
    const Tensor& t = *tables[i];
    const bool counts = i % 2 == 0;
    EMBER_CHECK(t.defined() && t.scalar_type() == kInt && t.is_contiguous() &&
                    t.device().is_cpu() && t.dim() == (counts ? 3 : 4) && t.size(2) == qb &&
                    (counts || t.size(3) == kb) && t.size(0) == m.kv_num_blocks.size(0) &&
                    t.size(1) == m.kv_num_blocks.size(1),
                "flex_attention: BlockMask tables must be contiguous int32 CPU tensors [B, H, {}] "
                "and [B, H, {}, {}] for Q_LEN={} KV_LEN={} and BLOCK_SIZE=({}, {}); got {}",
                qb, qb, kb, L, S, bq, bk,
                t.defined() ? fmt::format("{} {}", to_string(t.scalar_type()), t.sizes())
                            : std::string("an undefined tensor"));
  }
  const int32_t* num[] = {m.kv_num_blocks.data_ptr<int32_t>(),
                          m.full_kv_num_blocks.data_ptr<int32_t>()};
  const int32_t* idx[] = {m.kv_indices.data_ptr<int32_t>(), m.full_kv_indices.data_ptr<int32_t>()};
  const int64_t rows = m.kv_num_blocks.numel();
  for (int t = 0; t < 2; ++t)
    for (int64_t r = 0; r < rows; ++r) {
      EMBER_CHECK(num[t][r] >= 0 && num[t][r] <= kb,
                  "flex_attention: a BlockMask block count {} is outside [0, {}]", num[t][r], kb);
      for (int32_t j = 0; j < num[t][r]; ++j)
        EMBER_CHECK(idx[t][r * kb + j] >= 0 && idx[t][r * kb + j] < kb,
                    "flex_attention: a BlockMask block index {} is outside [0, {})",
                    idx[t][r * kb + j], kb);
    }
}

void check_operands(const Tensor& q, const Tensor& k, const Tensor& v, const BlockMask* mask,
                    bool enable_gqa) {
  EMBER_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
              "flex_attention: query, key and value must be 4-D [B, H, L, E], got {}, {} and {}",
              q.sizes(), k.sizes(), v.sizes());
  EMBER_CHECK(q.scalar_type() == k.scalar_type() && q.scalar_type() == v.scalar_type(),
              "flex_attention: query, key and value must share a dtype, got {}, {} and {}",
              to_string(q.scalar_type()), to_string(k.scalar_type()), to_string(v.scalar_type()));
  EMBER_CHECK(q.device() == k.device() && q.device() == v.device(),
              "flex_attention: query, key and value must be on one device");
  const ScalarType dt = q.scalar_type();
  const DeviceType dev = q.device().type();
  EMBER_CHECK(supports(OpId::flex_fused, dev, dt) && supports(OpId::flex_fused_backward, dev, dt),
              "flex_attention: no kernel for {} on {} (float32, float64, bfloat16 and float16 on "
              "the CPU)",
              to_string(dt), q.device());
  EMBER_CHECK(k.size(0) == q.size(0) && v.size(0) == q.size(0),
              "flex_attention: batch sizes differ: query {}, key {}, value {}", q.size(0),
              k.size(0), v.size(0));
  EMBER_CHECK(k.size(3) == q.size(3),
              "flex_attention: query and key feature sizes differ: {} and {}", q.size(3),
              k.size(3));
  EMBER_CHECK(v.size(2) == k.size(2) && v.size(1) == k.size(1),
              "flex_attention: key {} and value {} must have the same heads and length", k.sizes(),
              v.sizes());
  const int64_t hq = q.size(1), hk = k.size(1);
  if (enable_gqa) {
    EMBER_CHECK(hk > 0 && hq % hk == 0,
                "flex_attention: with enable_gqa the query heads ({}) must be a multiple of the "
                "key/value heads ({})",
                hq, hk);
  } else {
    EMBER_CHECK(hq == hk,
                "flex_attention: query has {} heads and key/value {}; pass enable_gqa = true for "
                "grouped-query attention",
                hq, hk);
  }
  if (!mask) return;
  EMBER_CHECK(mask->seq_lengths.first == q.size(2) && mask->seq_lengths.second == k.size(2),
              "flex_attention: the BlockMask was made for Q_LEN={} KV_LEN={}, but query has "
              "length {} and key {}",
              mask->seq_lengths.first, mask->seq_lengths.second, q.size(2), k.size(2));
  check_block_mask(*mask);
  const int64_t mb = mask->kv_num_blocks.size(0), mh = mask->kv_num_blocks.size(1);
  EMBER_CHECK((mb == 1 || mb == q.size(0)) && (mh == 1 || mh == hq),
              "flex_attention: a BlockMask of batch {} and heads {} does not broadcast to batch {} "
              "and {} query heads",
              mb, mh, q.size(0), hq);
}

/// The tables score_mod reads, found by calling it on ScoreDuals at the corners of the index
/// space, then refreshed from their tensors' current values.
std::vector<std::shared_ptr<CapturedState>> find_tables(const FlexMods& mods, int64_t B, int64_t H,
                                                        int64_t L, int64_t S) {
  std::vector<const CapturedState*> found;
  if (!mods.probe || B == 0 || H == 0 || L == 0 || S == 0) return {};
  const void* fn = mods.score_mod.get();
  for (int64_t b : {int64_t{0}, B - 1})
    for (int64_t h : {int64_t{0}, H - 1})
      for (int64_t q : {int64_t{0}, L - 1})
        for (int64_t kv : {int64_t{0}, S - 1}) mods.probe(fn, b, h, q, kv, found);
  std::vector<std::shared_ptr<CapturedState>> tables;
  for (const CapturedState* t : found) {
    // The probe returns raw pointers; each state is owned by its Captured handles (a score_mod
    // capturing by reference may not keep them), so backward holds the states themselves.
    auto st = std::const_pointer_cast<CapturedState>(t->shared_from_this());
    st->prepare(st->tensor);
    tables.push_back(std::move(st));
  }
  return tables;
}

void check_reads(const std::vector<std::shared_ptr<CapturedState>>& tables, const char* when) {
  for (const auto& t : tables)
    EMBER_CHECK(!t->out_of_range,
                "flex_attention{}: score_mod read a Captured tensor of sizes {} out of range (or "
                "with the wrong number of indices)",
                when, t->tensor.sizes());
}

struct Prepared {
  Tensor q, k, v;
  FlexParams p;
};

Prepared prepare(const Tensor& query, const Tensor& key, const Tensor& value, const FlexMods& score,
                 const BlockMask* mask, double scale) {
  Prepared f{as_4d(query), as_4d(key), as_4d(value), {}};
  SdpaParams& p = f.p.base;
  ember::detail::set_operands(p, f.q, f.k, f.v);
  p.scale = scale;
  f.p.score = &score;
  if (mask) {
    f.p.mask = &mask->mods();
    f.p.block_q = mask->BLOCK_SIZE.first;
    f.p.block_kv = mask->BLOCK_SIZE.second;
    f.p.mask_batch = mask->kv_num_blocks.size(0);
    f.p.mask_heads = mask->kv_num_blocks.size(1);
    f.p.kv_num = mask->kv_num_blocks.data_ptr<int32_t>();
    f.p.kv_idx = mask->kv_indices.data_ptr<int32_t>();
    f.p.full_num = mask->full_kv_num_blocks.data_ptr<int32_t>();
    f.p.full_idx = mask->full_kv_indices.data_ptr<int32_t>();
  }
  f.p.q_blocks = (p.L + f.p.block_q - 1) / f.p.block_q;
  f.p.kv_blocks = (p.S + f.p.block_kv - 1) / f.p.block_kv;
  return f;
}

}  // namespace

Tensor flex_attention_impl(const Tensor& query, const Tensor& key, const Tensor& value,
                           FlexMods score_mods, const BlockMask* block_mask,
                           std::optional<double> scale, bool enable_gqa) {
  check_operands(query, key, value, block_mask, enable_gqa);
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(3)));
  auto tables = find_tables(score_mods, query.size(0), query.size(1), query.size(2), key.size(2));
  std::vector<Tensor> grad_tables;
  for (const auto& t : tables) grad_tables.push_back(t->tensor);
  const bool record = GradMode::is_enabled() &&
                      (query.requires_grad() || key.requires_grad() || value.requires_grad() ||
                       std::any_of(grad_tables.begin(), grad_tables.end(),
                                   [](const Tensor& t) { return t.requires_grad(); }));
  EMBER_CHECK(!record || !score_mods.score_f || score_mods.score_grad_f,
              "flex_attention: score_mod takes its score as a plain number, so it cannot be "
              "differentiated; declare it `auto score` (see flex_score.h)");

  auto shared_mods = std::make_shared<const FlexMods>(std::move(score_mods));
  std::optional<BlockMask> mask_copy;
  if (block_mask) mask_copy = *block_mask;
  Prepared f = prepare(query, key, value, *shared_mods, mask_copy ? &*mask_copy : nullptr, sc);
  const ScalarType dt = query.scalar_type();
  Tensor out = empty_in_layout_of(f.q, f.p.base.Ev);
  Tensor lse = empty({f.p.base.batch, f.p.base.heads, f.p.base.L},
                     f.q.options().dtype(sdpa_accumulation_dtype(dt)));
  f.p.base.out = out.data_ptr();
  f.p.base.out_st = strides_of(out);
  f.p.base.lse = lse.data_ptr();
  {
    autograd::OpRecording off(query, key, value);
    get_kernel<OpId::flex_fused>(query.device().type(), dt)(dt, f.p);
  }
  check_reads(tables, "");
  if (!record) return out;

  std::vector<autograd::SavedVariable> saved_tables;
  for (const Tensor& t : grad_tables) saved_tables.push_back(autograd::save(t));
  autograd::record(
      "FlexAttentionBackward0", out, autograd::edges_of(query, key, value, grad_tables),
      [q_ = autograd::save(query), k_ = autograd::save(key), v_ = autograd::save(value),
       out_ = autograd::save_output(out), lse, mods = shared_mods, mask = std::move(mask_copy),
       tables, saved_tables, sc](const Tensor& grad, autograd::NeedsGrad) -> autograd::Grads {
        EMBER_CHECK(!GradMode::is_enabled(),
                    "flex_attention: double backward (create_graph) is not supported");
        const Tensor q = q_.unpack(), k = k_.unpack(), v = v_.unpack();
        for (size_t i = 0; i < tables.size(); ++i) tables[i]->prepare(saved_tables[i].unpack());
        Prepared g = prepare(q, k, v, *mods, mask ? &*mask : nullptr, sc);
        const Tensor o = as_4d(out_.unpack()), dout = as_4d(grad);
        Tensor dq = empty_in_layout_of(g.q, g.p.base.E), dk = empty_in_layout_of(g.k, g.p.base.E);
        Tensor dv = empty_in_layout_of(g.v, g.p.base.Ev);
        FlexBackwardParams bp;
        bp.fwd = g.p;
        bp.fwd.base.out = const_cast<void*>(o.data_ptr());
        bp.fwd.base.out_st = strides_of(o);
        bp.fwd.base.lse = const_cast<void*>(lse.data_ptr());
        ember::detail::set_gradients(bp, dout, dq, dk, dv);
        std::vector<Tensor> table_grads;
        std::vector<const CapturedState*> table_ptrs;
        std::vector<double*> grad_ptrs;
        std::vector<int64_t> numel;
        for (const auto& t : tables) {
          table_grads.push_back(zeros(t->prepared.sizes(), TensorOptions().dtype(kDouble)));
          table_ptrs.push_back(t.get());
          grad_ptrs.push_back(table_grads.back().data_ptr<double>());
          numel.push_back(t->prepared.numel());
        }
        int errors = 0;
        bp.captured = static_cast<int>(tables.size());
        bp.tables = table_ptrs.data();
        bp.grads = grad_ptrs.data();
        bp.numel = numel.data();
        bp.errors = &errors;
        const ScalarType dtype = q.scalar_type();
        get_kernel<OpId::flex_fused_backward>(q.device().type(), dtype)(dtype, bp);
        check_reads(tables, " backward");
        EMBER_CHECK(!(errors & kFlexErrUnknownTable),
                    "flex_attention backward: score_mod read a Captured tensor only at some "
                    "positions, so flex_attention did not find it; read every captured tensor "
                    "unconditionally");
        EMBER_CHECK(!(errors & kFlexErrTooManyReads),
                    "flex_attention backward: score_mod combined more than {} captured reads into "
                    "one score",
                    ScoreDual::kMaxTerms);
        autograd::Grads grads(3 + tables.size());
        grads[0] = dq;
        grads[1] = dk;
        grads[2] = dv;
        for (size_t i = 0; i < tables.size(); ++i)
          grads[3 + i] =
              table_grads[i].to(tables[i]->tensor.scalar_type()).view(tables[i]->tensor.sizes());
        return grads;
      });
  return out;
}

}  // namespace ember::nn::attention::detail
