// BlockMask (which key blocks each query block of FlexAttention reads) and Captured (a tensor a
// score_mod reads): the non-template halves of include/ember/nn/attention/flex_*.h.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/attention/flex_attention.h"
#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/core/parallel.h"

namespace ember::nn::attention {

namespace detail {

void CapturedState::prepare(const Tensor& values) {
  EMBER_CHECK(values.is_floating_point(),
              "flex_attention: a Captured tensor must be floating point, got {}",
              to_string(values.scalar_type()));
  EMBER_CHECK(values.dim() <= kMaxDim,
              "flex_attention: a Captured tensor has at most {} dims, got {}", kMaxDim,
              values.dim());
  const Tensor host = values.detach().to(kCPU);
  prepared = host.scalar_type() == kDouble ? host.contiguous() : host.to(kFloat).contiguous();
  f = prepared.scalar_type() == kFloat ? prepared.data_ptr<float>() : nullptr;
  d = prepared.scalar_type() == kDouble ? prepared.data_ptr<double>() : nullptr;
  dim = prepared.dim();
  for (int64_t i = 0; i < dim; ++i) {
    sizes[i] = prepared.size(i);
    strides[i] = prepared.stride(i);
  }
  out_of_range = false;
}

BlockMask build_block_mask(FlexMods mods, BlockClassifier classify,
                           std::function<bool(int64_t, int64_t, int64_t, int64_t)> fn, int64_t B,
                           int64_t H, int64_t q_len, int64_t kv_len, Device device,
                           BlockSize block) {
  EMBER_CHECK(B >= 1 && H >= 1 && q_len >= 0 && kv_len >= 0,
              "create_block_mask: B and H must be at least 1 and the lengths at least 0, got B={} "
              "H={} Q_LEN={} KV_LEN={}",
              B, H, q_len, kv_len);
  EMBER_CHECK(block.q >= 1 && block.kv >= 1,
              "create_block_mask: BLOCK_SIZE must be positive, got ({}, {})", block.q, block.kv);
  const int64_t qb = (q_len + block.q - 1) / block.q, kb = (kv_len + block.kv - 1) / block.kv;
  Tensor kv_num = zeros({B, H, qb}, kInt), full_num = zeros({B, H, qb}, kInt);
  Tensor kv_idx = zeros({B, H, qb, kb}, kInt), full_idx = zeros({B, H, qb, kb}, kInt);
  int32_t* pn = kv_num.data_ptr<int32_t>();
  int32_t* fn_ = full_num.data_ptr<int32_t>();
  int32_t* pi = kv_idx.data_ptr<int32_t>();
  int32_t* fi = full_idx.data_ptr<int32_t>();
  const void* mask_mod = mods.mask_mod.get();
  // Each (b, h, query block) row is independent; mask_mod must be safe to call from several
  // threads (a pure function of its arguments and captured constants, as in Python).
  parallel_for(0, B * H * qb, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / (H * qb), h = row / qb % H, q0 = row % qb * block.q;
      const int64_t m = std::min(block.q, q_len - q0);
      for (int64_t j = 0; j < kb; ++j) {
        const int64_t k0 = j * block.kv, n = std::min(block.kv, kv_len - k0);
        const int kind = classify(mask_mod, b, h, q0, m, k0, n);
        if (kind == 2) fi[row * kb + fn_[row]++] = static_cast<int32_t>(j);
        if (kind == 1) pi[row * kb + pn[row]++] = static_cast<int32_t>(j);
      }
    }
  });
  return BlockMask(kv_num.to(device), kv_idx.to(device), full_num.to(device), full_idx.to(device),
                   block, q_len, kv_len, std::move(mods), std::move(fn));
}

}  // namespace detail

Captured::Captured(Tensor table) : state_(std::make_shared<detail::CapturedState>()) {
  EMBER_CHECK(table.defined(), "Captured: the tensor is undefined");
  state_->tensor = std::move(table);
  state_->prepare(state_->tensor);
}

BlockMask::BlockMask(Tensor kv_num, Tensor kv_idx, Tensor full_num, Tensor full_idx,
                     BlockSize block, int64_t q_len, int64_t kv_len, detail::FlexMods mods,
                     std::function<bool(int64_t, int64_t, int64_t, int64_t)> fn)
    : kv_num_blocks(std::move(kv_num)),
      kv_indices(std::move(kv_idx)),
      full_kv_num_blocks(std::move(full_num)),
      full_kv_indices(std::move(full_idx)),
      BLOCK_SIZE{block.q, block.kv},
      seq_lengths{q_len, kv_len},
      mods_(std::move(mods)),
      mask_mod_fn_(std::move(fn)) {}

Tensor BlockMask::to_dense() const {
  EMBER_CHECK(kv_indices.defined(), "BlockMask::to_dense: an empty BlockMask");
  const Tensor num = kv_num_blocks.to(kCPU), idx = kv_indices.to(kCPU);
  const Tensor fnum = full_kv_num_blocks.to(kCPU), fidx = full_kv_indices.to(kCPU);
  Tensor dense = zeros(idx.sizes(), kInt);
  const int64_t rows = num.numel(), kb = idx.size(3);
  int32_t* out = dense.data_ptr<int32_t>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int32_t i = 0; i < num.data_ptr<int32_t>()[r]; ++i)
      out[r * kb + idx.data_ptr<int32_t>()[r * kb + i]] = 1;
    for (int32_t i = 0; i < fnum.data_ptr<int32_t>()[r]; ++i)
      out[r * kb + fidx.data_ptr<int32_t>()[r * kb + i]] = 1;
  }
  return dense.to(kv_indices.device());
}

double BlockMask::sparsity() const {
  const Tensor dense = to_dense();
  if (dense.numel() == 0) return 0.0;
  const double read = dense.sum().item<double>();
  return 100.0 * (1.0 - read / static_cast<double>(dense.numel()));
}

std::string BlockMask::to_string() const {
  const Tensor dense = to_dense().to(kCPU);
  const Tensor part = kv_num_blocks.to(kCPU), pidx = kv_indices.to(kCPU);
  std::string s = "BlockMask(shape=[" + std::to_string(dense.size(0)) + ", " +
                  std::to_string(dense.size(1)) + ", " + std::to_string(seq_lengths.first) + ", " +
                  std::to_string(seq_lengths.second) +
                  "], sparsity=" + std::to_string(sparsity()).substr(0, 5) + "%)\n";
  const int64_t B = dense.size(0), H = dense.size(1), qb = dense.size(2), kb = dense.size(3);
  for (int64_t b = 0; b < std::min<int64_t>(B, 8); ++b)
    for (int64_t h = 0; h < std::min<int64_t>(H, 8); ++h) {
      s += "(" + std::to_string(b) + ", " + std::to_string(h) + ")\n";
      for (int64_t i = 0; i < qb; ++i) {
        const int64_t row = (b * H + h) * qb + i;
        std::vector<bool> partial(static_cast<size_t>(kb), false);
        for (int32_t j = 0; j < part.data_ptr<int32_t>()[row]; ++j)
          partial[static_cast<size_t>(pidx.data_ptr<int32_t>()[row * kb + j])] = true;
        for (int64_t j = 0; j < kb; ++j)
          s += partial[static_cast<size_t>(j)]           ? "░"
               : dense.data_ptr<int32_t>()[row * kb + j] ? "█"
                                                         : " ";
        s += "\n";
      }
    }
  return s;
}

}  // namespace ember::nn::attention
