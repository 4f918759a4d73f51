// The two paths of scaled_dot_product_attention (nn_attention.cpp validates the arguments and
// chooses): the math composition of recorded ops (nn_attention_math.cpp) and the fused kernel
// rows behind one autograd node (nn_attention_fused.cpp).
#pragma once

#include <string>

#include "ember/core/tensor.h"
#include "kernels/common/attention_params.h"

namespace ember::detail {

/// Arguments already validated (dtypes, shapes, mask broadcasting, GQA divisibility).
struct SdpaArgs {
  Tensor q, k, v;  // [..., L, E], [..., S, E], [..., S, Ev]
  Tensor mask;     // undefined, bool, or of q's dtype; broadcasts to [..., L, S]
  bool causal = false;
  double scale = 1.0;
  int64_t kv_repeat = 1;  // grouped-query attention: query heads per key/value head
};

/// An additive mask of `dtype` from a bool one: -inf where `masked` is true, else 0. (SDPA's
/// bool masks say which keys take part, MultiheadAttention's which do not: each passes the
/// positions to exclude.)
Tensor additive_mask(const Tensor& masked, ScalarType dtype);

/// k or v [..., Hk, S, D] with each head repeated `repeat` times in place ([..., Hk·repeat, S, D],
/// as repeat_interleave on dim -3), and the reverse for a gradient: the sum over each group.
Tensor repeat_kv(const Tensor& t, int64_t repeat);
Tensor fold_kv(const Tensor& grad, int64_t repeat);

/// softmax(scale·q·kᵀ + mask) over the keys, by recorded ops in q's dtype, with rows where no key
/// takes part set to 0; k already repeated for GQA.
Tensor sdpa_weights(const SdpaArgs& a, const Tensor& k_full);

/// The math path: recorded ops (float for 16-bit inputs, then cast back), dropout on the weights.
Tensor sdpa_math(const SdpaArgs& a, double dropout_p, Tensor* weights = nullptr);

/// Why the fused kernel cannot run these arguments ("" when it can).
std::string sdpa_fused_unsupported(const SdpaArgs& a, double dropout_p);
Tensor sdpa_fused(const SdpaArgs& a);

// ---- Operand layout shared by the fused kernels (SDPA, FlexAttention) ----
/// float for float/bfloat16/float16, double for double: what the fused kernels accumulate in.
ScalarType sdpa_accumulation_dtype(ScalarType t);
/// t [..., R, C] of rank 3 or 4 as [B, H, R, C]: a view when its rows are dense and apart, else
/// a contiguous copy.
Tensor as_4d(const Tensor& t);
/// The kernels' strides of a 4-D operand.
SdpaStrides strides_of(const Tensor& t4);
/// Sizes, data pointers and strides of the 4-D operands (from as_4d) into the kernel params.
void set_operands(SdpaParams& p, const Tensor& q4, const Tensor& k4, const Tensor& v4);
/// Points a backward params struct (SdpaBackwardParams or FlexBackwardParams) at the output's
/// gradient and the 4-D gradient buffers of q, k and v.
template <class BackwardParams>
void set_gradients(BackwardParams& bp, const Tensor& dout, const Tensor& dq, const Tensor& dk,
                   const Tensor& dv) {
  bp.dout = dout.data_ptr();
  bp.dout_st = strides_of(dout);
  bp.dq = dq.data_ptr();
  bp.dk = dk.data_ptr();
  bp.dv = dv.data_ptr();
  bp.dq_st = strides_of(dq);
  bp.dk_st = strides_of(dk);
  bp.dv_st = strides_of(dv);
}
/// A new [B, H, R, cols] tensor laid out in memory as `like`.
Tensor empty_in_layout_of(const Tensor& like, int64_t cols);

/// The backends allowed on this thread, as bits 1 << int(SDPBackend) (src/nn/attention.cpp).
unsigned& sdpa_allowed_bits();

}  // namespace ember::detail
