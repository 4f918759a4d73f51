// The kernel interface behind the `sdpa_fused` and `sdpa_fused_backward` slots: scaled dot-product
// attention over [batch, heads] independent problems, tiled so that the [L, S] score matrix is
// never stored (online softmax forward, recomputation backward).
//
// Operands are [batch, heads, rows, cols] of the kernel's dtype in the device's memory, each row's
// cols elements contiguous and the rest strided (SdpaStrides), so the projections of
// MultiheadAttention and transposed views arrive without copies:
//   q [batch, heads, L, E], k [batch, kv_heads, S, E], v [batch, kv_heads, S, Ev],
//   out [batch, heads, L, Ev]; lse [batch, heads, L] contiguous, in the accumulation dtype (float
//   for float/bfloat16/float16, double for double). Query head h reads key/value head
//   h / (heads / kv_heads) (grouped-query attention; kv_heads == heads without it).
#pragma once

#include <cstdint>

namespace ember {

/// Row r of (batch b, head h) starts at data + b·bs + h·hs + r·rs (elements).
struct SdpaStrides {
  int64_t bs = 0, hs = 0, rs = 0;
};

struct SdpaParams {
  int64_t batch = 0, heads = 0, kv_heads = 0;
  int64_t L = 0, S = 0, E = 0, Ev = 0;
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  SdpaStrides q_st, k_st, v_st;
  /// An additive mask in the accumulation dtype, added to the scaled scores: element (b, h, l, s)
  /// at mask + b·mask_bs + h·mask_hs + l·mask_ls + s·mask_ss (a stride of 0 broadcasts), -inf
  /// where a position takes no part. Null for none.
  const void* mask = nullptr;
  int64_t mask_bs = 0, mask_hs = 0, mask_ls = 0, mask_ss = 0;
  /// Key s takes part in query l's softmax only where s <= l (top-left aligned, as PyTorch).
  bool causal = false;
  double scale = 1.0;
  /// Forward writes out and lse (logsumexp of each row's scaled, masked scores; +inf for a row
  /// with no position taking part, whose output is 0). Backward reads them.
  void* out = nullptr;
  SdpaStrides out_st;
  void* lse = nullptr;
};

/// The gradients of q, k and v from that of out (dout) and the forward's params (out and lse
/// filled in). dq, dk, dv have the sizes of q, k and v, with strides of their own.
struct SdpaBackwardParams {
  SdpaParams fwd;
  const void* dout = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  SdpaStrides dout_st, dq_st, dk_st, dv_st;
};

}  // namespace ember
