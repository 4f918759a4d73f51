// The kernel interface behind the `flex_fused` and `flex_fused_backward` slots: FlexAttention,
// i.e. the fused attention of attention_params.h with a score_mod applied to each scaled score,
// and block sparsity: each query block reads only the key blocks its BlockMask lists, applying
// mask_mod per position in the partial ones. The callables arrive as per-tile functions
// (include/ember/nn/attention/flex_tiles.h), instantiated where the user called flex_attention.
//
// The operand layout, the output and lse are those of SdpaParams (its mask and causal fields are
// unused). Tile sizes are the BlockMask's block sizes.
#pragma once

#include <cstdint>

#include "ember/nn/attention/flex_tiles.h"
#include "kernels/common/attention_params.h"

namespace ember {

struct FlexParams {
  SdpaParams base;
  const nn::attention::detail::FlexMods* score = nullptr;  // score_mod tiles (may be empty)
  const nn::attention::detail::FlexMods* mask = nullptr;   // mask_mod tiles; null with no mask
  int64_t block_q = 128, block_kv = 128;
  /// Block tables (int32, contiguous): num [mask_batch, mask_heads, q_blocks], idx [..., kv_blocks]
  /// for partial (kv_*) and full (full_*) blocks. Null kv_num: every block full (no mask).
  /// A mask batch or head count of 1 broadcasts.
  int64_t mask_batch = 1, mask_heads = 1, q_blocks = 0, kv_blocks = 0;
  const int32_t* kv_num = nullptr;
  const int32_t* kv_idx = nullptr;
  const int32_t* full_num = nullptr;
  const int32_t* full_idx = nullptr;
};

/// The gradients of q, k, v (as SdpaBackwardParams) and of the tables score_mod reads: grads[i]
/// (float64, numel[i] elements, zeroed by the caller) for tables[i]. errors: kFlexErr* bits.
struct FlexBackwardParams {
  FlexParams fwd;
  const void* dout = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  SdpaStrides dout_st, dq_st, dk_st, dv_st;
  int captured = 0;
  const nn::attention::detail::CapturedState* const* tables = nullptr;
  double* const* grads = nullptr;
  const int64_t* numel = nullptr;
  int* errors = nullptr;
};

}  // namespace ember
