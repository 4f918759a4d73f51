// FlexAttention (torch.nn.attention.flex_attention) in eager C++, fused: attention whose scores a
// user callable modifies (score_mod) and whose sparsity a second one describes (mask_mod, through
// a BlockMask), run by one tiled kernel that never stores [L, S] and skips blocks no query reads.
//
//   using namespace ember::nn::attention;
//   auto causal = [](int64_t b, int64_t h, int64_t q, int64_t kv) { return q >= kv; };
//   BlockMask mask = create_block_mask(causal, std::nullopt, std::nullopt, L, L);
//   Captured slope(alibi_slopes);                        // [heads]
//   auto alibi = [=](auto score, int64_t b, int64_t h, int64_t q, int64_t kv) {
//     return score + slope(h) * (kv - q);
//   };
//   Tensor out = flex_attention(q, k, v, alibi, mask);   // [B, Hq, L, Ev]
//
// q [B, Hq, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev]; Hkv == Hq, or divides it with
// enable_gqa. score_mod sees the scaled score q·k·scale (scale defaults to 1/sqrt(E)); then
// positions mask_mod rejects get -inf; a row with no position left gives 0. Gradients flow to q,
// k, v and to every Captured tensor score_mod reads (flex_score.h says how to write one);
// double backward is not supported. float32, float64, bfloat16, float16 (accumulating in float).
// flex_mods.h ships the usual callables (causal, sliding window, prefix-LM, document masks; ALiBi,
// relative position bias, tanh soft-capping; and_masks / or_masks).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"
#include "ember/nn/attention/flex_mods.h"
#include "ember/nn/attention/flex_score.h"
#include "ember/nn/attention/flex_tiles.h"

namespace ember::nn::attention {

/// The block sizes of a BlockMask: one for both (128 by default), or {query, key/value}.
struct BlockSize {
  BlockSize(int64_t both = 128) : q(both), kv(both) {}  // NOLINT: 128 reads as a size
  BlockSize(int64_t q_block, int64_t kv_block) : q(q_block), kv(kv_block) {}
  int64_t q, kv;
};

/// Which key blocks each query block reads, from a mask_mod: per (batch, head, query block), the
/// "full" key blocks (every position kept: mask_mod is not evaluated) and the partial ones
/// (mask_mod applied per position); the rest are skipped. Batch and head sizes of 1 broadcast.
class EMBER_API BlockMask {
 public:
  BlockMask() = default;

  /// int32 [B, H, Q_BLOCKS]: partial key blocks per query block; [B, H, Q_BLOCKS, KV_BLOCKS]:
  /// their indices (the first kv_num_blocks of each row; ascending). full_*: the same of the
  /// full blocks.
  Tensor kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices;
  /// {query block, key/value block}.
  std::pair<int64_t, int64_t> BLOCK_SIZE{128, 128};
  /// {Q_LEN, KV_LEN} the mask was made for.
  std::pair<int64_t, int64_t> seq_lengths{0, 0};

  /// The mask_mod, callable per position (slow: for inspection; kernels inline their own copy).
  const std::function<bool(int64_t, int64_t, int64_t, int64_t)>& mask_mod() const {
    return mask_mod_fn_;
  }
  /// [B, H, Q_BLOCKS, KV_BLOCKS] int32: 1 where a block is read (partial or full), else 0.
  Tensor to_dense() const;
  /// The percentage of blocks skipped.
  double sparsity() const;
  /// One line per (batch, head) block grid: '█' full, '░' partial, ' ' skipped (first 8 of each).
  std::string to_string() const;

  /// How flex_attention reaches the mask_mod (detail).
  const detail::FlexMods& mods() const { return mods_; }

  /// Assembles a mask from its tables (create_block_mask fills them; detail).
  BlockMask(Tensor kv_num, Tensor kv_idx, Tensor full_num, Tensor full_idx, BlockSize block,
            int64_t q_len, int64_t kv_len, detail::FlexMods mods,
            std::function<bool(int64_t, int64_t, int64_t, int64_t)> fn);

 private:
  detail::FlexMods mods_;  // mask_mod, mask_f, mask_d
  std::function<bool(int64_t, int64_t, int64_t, int64_t)> mask_mod_fn_;
};

namespace detail {

/// Counts kept positions of one block: 0 none, 1 some, 2 all.
using BlockClassifier = int (*)(const void* mask_mod, int64_t b, int64_t h, int64_t q0, int64_t m,
                                int64_t k0, int64_t n);

template <class F>
int classify_block(const void* fn, int64_t b, int64_t h, int64_t q0, int64_t m, int64_t k0,
                   int64_t n) {
  const F& mask = *static_cast<const F*>(fn);
  int64_t kept = 0;
  for (int64_t q = q0; q < q0 + m; ++q)
    for (int64_t kv = k0; kv < k0 + n; ++kv) kept += mask(b, h, q, kv) ? 1 : 0;
  return kept == 0 ? 0 : kept == m * n ? 2 : 1;
}

EMBER_API BlockMask build_block_mask(FlexMods mods, BlockClassifier classify,
                                     std::function<bool(int64_t, int64_t, int64_t, int64_t)> fn,
                                     int64_t B, int64_t H, int64_t q_len, int64_t kv_len,
                                     Device device, BlockSize block);

EMBER_API Tensor flex_attention_impl(const Tensor& query, const Tensor& key, const Tensor& value,
                                     FlexMods score_mods, const BlockMask* block_mask,
                                     std::optional<double> scale, bool enable_gqa);

}  // namespace detail

/// A BlockMask from mask_mod(b, h, q_idx, kv_idx) -> bool (true: the position takes part). B or
/// H as nullopt (or 1) broadcasts over batch or heads (mask_mod is then asked with index 0).
/// mask_mod is evaluated once per position here and again per position of partial blocks only.
template <class MaskMod>
BlockMask create_block_mask(MaskMod mask_mod, std::optional<int64_t> B, std::optional<int64_t> H,
                            int64_t Q_LEN, int64_t KV_LEN, Device device = kCPU,
                            BlockSize BLOCK_SIZE = 128) {
  static_assert(std::is_invocable_r_v<bool, const MaskMod&, int64_t, int64_t, int64_t, int64_t>,
                "create_block_mask: mask_mod must be callable as (b, h, q_idx, kv_idx) -> bool");
  detail::FlexMods mods;
  auto held = std::make_shared<const MaskMod>(std::move(mask_mod));
  mods.mask_mod = held;
  mods.mask_f = &detail::mask_tile<MaskMod, float>;
  mods.mask_d = &detail::mask_tile<MaskMod, double>;
  std::function<bool(int64_t, int64_t, int64_t, int64_t)> fn =
      [held](int64_t b, int64_t h, int64_t q, int64_t kv) { return bool((*held)(b, h, q, kv)); };
  return detail::build_block_mask(std::move(mods), &detail::classify_block<MaskMod>, std::move(fn),
                                  B.value_or(1), H.value_or(1), Q_LEN, KV_LEN, device, BLOCK_SIZE);
}

/// Attention with a score_mod (nullptr: none) and a block_mask (nullopt: every position), fused.
template <class ScoreMod = std::nullptr_t>
Tensor flex_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                      ScoreMod score_mod = nullptr,
                      const std::optional<BlockMask>& block_mask = std::nullopt,
                      std::optional<double> scale = std::nullopt, bool enable_gqa = false) {
  detail::FlexMods mods;
  detail::set_score_mod(mods, std::move(score_mod));
  return detail::flex_attention_impl(query, key, value, std::move(mods),
                                     block_mask ? &*block_mask : nullptr, scale, enable_gqa);
}

}  // namespace ember::nn::attention
