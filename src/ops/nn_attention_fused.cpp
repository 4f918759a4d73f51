// The fused path of scaled_dot_product_attention: the sdpa_fused row forward (output and each
// row's logsumexp, no [L, S] tensor), recorded as one node whose backward is the
// sdpa_fused_backward row. Under create_graph the backward is recorded ops instead (it recomputes
// the weights; double backward of attention is rare and this keeps one kernel per direction).
#include <algorithm>
#include <array>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "kernels/common/attention_params.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/ops/nn_attention_impl.h"
#include "src/ops/op_common.h"

namespace ember::detail {

ScalarType sdpa_accumulation_dtype(ScalarType t) { return t == kDouble ? kDouble : kFloat; }

/// t [..., R, C] of rank 3 or 4 as [B, H, R, C]: a view when its rows are dense and do not
/// overlap (GEMM's leading dimension must be at least C; an expanded gradient has row stride 0),
/// else a contiguous copy. Batch and head strides may be anything, 0 included.
Tensor as_4d(const Tensor& t) {
  const Tensor t4 = t.dim() == 3 ? t.unsqueeze(0) : t;
  const bool dense_rows = t4.stride(3) == 1 || t4.size(3) == 1;
  const bool rows_apart = t4.size(2) == 1 || t4.stride(2) >= t4.size(3);
  return dense_rows && rows_apart ? t4 : t4.contiguous();
}

/// The kernel's strides of a 4-D operand; a single row's stride is never read, so it is given as
/// the row length (GEMM checks it even then).
SdpaStrides strides_of(const Tensor& t4) {
  const int64_t rs = t4.size(2) == 1 ? std::max(t4.stride(2), t4.size(3)) : t4.stride(2);
  return {t4.stride(0), t4.stride(1), rs};
}

/// A new [B, H, R, cols] tensor laid out in memory as `like` (its first three dims in the order of
/// their strides, cols innermost): the output of MultiheadAttention's [L, N·H, hd] projections
/// then reshapes to [L, N, E] without a copy, as PyTorch's CPU kernel arranges for its own.
Tensor empty_in_layout_of(const Tensor& like, int64_t cols) {
  std::array<int64_t, 3> order{0, 1, 2};
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return like.stride(a) > like.stride(b); });
  Tensor t =
      empty({like.size(order[0]), like.size(order[1]), like.size(order[2]), cols}, like.options());
  std::array<int64_t, 4> back{0, 0, 0, 3};  // the dim of t holding original dim d
  for (int64_t d = 0; d < 3; ++d) back[static_cast<size_t>(order[static_cast<size_t>(d)])] = d;
  return t.permute({back[0], back[1], back[2], back[3]});
}

void set_operands(SdpaParams& p, const Tensor& q4, const Tensor& k4, const Tensor& v4) {
  p.batch = q4.size(0);
  p.heads = q4.size(1);
  p.kv_heads = k4.size(1);
  p.L = q4.size(2);
  p.S = k4.size(2);
  p.E = q4.size(3);
  p.Ev = v4.size(3);
  p.q = q4.data_ptr();
  p.k = k4.data_ptr();
  p.v = v4.data_ptr();
  p.q_st = strides_of(q4);
  p.k_st = strides_of(k4);
  p.v_st = strides_of(v4);
}

namespace {

/// The fused kernels' view of the arguments: 4-D operands with dense rows and the mask as an
/// additive tensor of the accumulation dtype, broadcast (stride 0) to [B, H, L, S].
struct Fused {
  Tensor q, k, v, mask;
  SdpaParams p;
};

Fused prepare(const SdpaArgs& a) {
  Fused f;
  f.q = as_4d(a.q);
  f.k = as_4d(a.k);
  f.v = as_4d(a.v);
  SdpaParams& p = f.p;
  set_operands(p, f.q, f.k, f.v);
  p.causal = a.causal;
  p.scale = a.scale;
  if (a.mask.defined()) {
    const ScalarType acc = sdpa_accumulation_dtype(a.q.scalar_type());
    Tensor m =
        a.mask.scalar_type() == kBool ? additive_mask(a.mask.logical_not(), acc) : a.mask.to(acc);
    std::vector<int64_t> sizes(4 - static_cast<size_t>(m.dim()), 1);
    sizes.insert(sizes.end(), m.sizes().begin(), m.sizes().end());
    f.mask = m.contiguous().view(sizes).expand({p.batch, p.heads, p.L, p.S});
    p.mask = f.mask.data_ptr();
    p.mask_bs = f.mask.stride(0);
    p.mask_hs = f.mask.stride(1);
    p.mask_ls = f.mask.stride(2);
    p.mask_ss = f.mask.stride(3);
  }
  return f;
}

/// The gradients of q, k, v by recorded ops (create_graph).
autograd::Grads backward_composed(const SdpaArgs& a, const Tensor& dout) {
  const Tensor k_full = repeat_kv(a.k, a.kv_repeat), v_full = repeat_kv(a.v, a.kv_repeat);
  const Tensor w = sdpa_weights(a, k_full);
  const Tensor dv = matmul(w.transpose(-2, -1), dout);
  const Tensor dw = matmul(dout, v_full.transpose(-2, -1));
  const Tensor ds = w * (dw - (dw * w).sum({-1}, true));
  const Tensor dq = matmul(ds, k_full) * a.scale;
  const Tensor dk = matmul(ds.transpose(-2, -1), a.q) * a.scale;
  return {dq, fold_kv(dk, a.kv_repeat), fold_kv(dv, a.kv_repeat)};
}

}  // namespace

std::string sdpa_fused_unsupported(const SdpaArgs& a, double dropout_p) {
  const DeviceType dev = a.q.device().type();
  const ScalarType dtype = a.q.scalar_type();
  if (!supports(OpId::sdpa_fused, dev, dtype) || !supports(OpId::sdpa_fused_backward, dev, dtype))
    return fmt::format("no fused kernel for {} on {}", to_string(dtype), a.q.device());
  if (dropout_p > 0) return "dropout_p > 0 (the fused kernel has no dropout)";
  if (a.q.dim() < 3 || a.q.dim() > 4)
    return "query of rank " + std::to_string(a.q.dim()) + " (it takes rank 3 or 4)";
  if (a.k.dim() != a.q.dim() || a.v.dim() != a.q.dim())
    return "key or value of another rank than query";
  for (int64_t d = 0; d < a.q.dim() - 3; ++d)
    if (a.k.size(d) != a.q.size(d) || a.v.size(d) != a.q.size(d))
      return "key or value with a batch size other than query's";
  if (a.k.size(-3) * a.kv_repeat != a.q.size(-3) || a.v.size(-3) != a.k.size(-3))
    return "key or value heads that do not match query's";
  if (a.q.numel() == 0 || a.k.numel() == 0 || a.v.numel() == 0) return "an empty operand";
  if (a.mask.defined() && a.mask.requires_grad() && GradMode::is_enabled())
    return "an attn_mask that requires grad";
  return "";
}

Tensor sdpa_fused(const SdpaArgs& a) {
  autograd::OpRecording rec(a.q, a.k, a.v);
  Fused f = prepare(a);
  const ScalarType acc = sdpa_accumulation_dtype(a.q.scalar_type());
  Tensor out4 = empty_in_layout_of(f.q, f.p.Ev);
  Tensor lse = empty({f.p.batch, f.p.heads, f.p.L}, f.q.options().dtype(acc));
  f.p.out = out4.data_ptr();
  f.p.out_st = strides_of(out4);
  f.p.lse = lse.data_ptr();
  const DeviceType dev = a.q.device().type();
  get_kernel<OpId::sdpa_fused>(dev, a.q.scalar_type())(a.q.scalar_type(), f.p);
  Tensor out = a.q.dim() == 3 ? out4.squeeze(0) : out4;
  if (rec) {
    autograd::record(
        "ScaledDotProductFlashAttentionForCpuBackward0", out, autograd::edges_of(a.q, a.k, a.v),
        [q_ = autograd::save(a.q), k_ = autograd::save(a.k), v_ = autograd::save(a.v),
         out_ = autograd::save_output(out), mask = a.mask, lse, causal = a.causal, scale = a.scale,
         repeat = a.kv_repeat](const Tensor& grad, autograd::NeedsGrad) -> autograd::Grads {
          SdpaArgs b{q_.unpack(), k_.unpack(), v_.unpack(), mask, causal, scale, repeat};
          if (GradMode::is_enabled()) return backward_composed(b, grad);
          Fused g = prepare(b);
          const Tensor o = as_4d(out_.unpack());
          const Tensor dout = as_4d(grad);
          Tensor dq = empty_in_layout_of(g.q, g.p.E), dk = empty_in_layout_of(g.k, g.p.E);
          Tensor dv = empty_in_layout_of(g.v, g.p.Ev);
          SdpaBackwardParams bp;
          bp.fwd = g.p;
          bp.fwd.out = const_cast<void*>(o.data_ptr());
          bp.fwd.out_st = strides_of(o);
          bp.fwd.lse = const_cast<void*>(lse.data_ptr());
          set_gradients(bp, dout, dq, dk, dv);
          const ScalarType dtype = b.q.scalar_type();
          get_kernel<OpId::sdpa_fused_backward>(b.q.device().type(), dtype)(dtype, bp);
          auto like = [](const Tensor& g4, const Tensor& input) {
            return input.dim() == 3 ? g4.squeeze(0) : g4;
          };
          return {like(dq, b.q), like(dk, b.k), like(dv, b.v)};
        });
  }
  return out;
}

}  // namespace ember::detail
