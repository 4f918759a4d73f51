// CPU kernels of FlexAttention (kernels/common/flex_attention_params.h): the fused attention of
// attention_kernels.cpp with two changes per tile.
//  - Which tiles: a query block reads only the key blocks its BlockMask lists, "full" ones as
//    they are and partial ones through mask_mod. A causal mask at L = 4096 with 128-blocks lists
//    528 of 1024 tiles, so the GEMMs and exponentials roughly halve.
//  - What a score is: after the scaled-score GEMM, score_mod rewrites the tile in place (one
//    indirect call per tile; the callable is inlined in the tile loop, flex_tiles.h).
// Backward recomputes each tile's modified scores and P as the SDPA kernel does, forms
// dL/d(modified score) = P∘(dP − rowsum(dO∘O)), and lets score_mod's ScoreDual pass turn it into
// dL/d(scaled score) while it adds the gradients of captured tables into per-worker float64
// buffers (summed at the end under a lock), or, for tables too large to copy per worker, into
// one buffer by atomic adds.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "ember/core/half.h"
#include "kernels/common/flex_attention_params.h"
#include "kernels/cpu/attention_tiles.h"
#include "src/core/check.h"
#include "src/core/parallel.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace {

using namespace attention_tiles;
using nn::attention::detail::FlexGradSink;
using nn::attention::detail::FlexTile;

template <class A>
void apply_score_mod(const FlexParams& p, const FlexTile<A>& t) {
  if constexpr (std::is_same_v<A, float>) {
    if (p.score && p.score->score_f) p.score->score_f(p.score->score_mod.get(), t);
  } else {
    if (p.score && p.score->score_d) p.score->score_d(p.score->score_mod.get(), t);
  }
}

template <class A>
void apply_mask_mod(const FlexParams& p, const FlexTile<A>& t) {
  if constexpr (std::is_same_v<A, float>) {
    p.mask->mask_f(p.mask->mask_mod.get(), t);
  } else {
    p.mask->mask_d(p.mask->mask_mod.get(), t);
  }
}

template <class A>
void score_mod_backward(const FlexParams& p, const FlexTile<A>& t, const A* raw,
                        FlexGradSink& sink) {
  if constexpr (std::is_same_v<A, float>) {
    p.score->score_grad_f(p.score->score_mod.get(), t, raw, sink);
  } else {
    p.score->score_grad_d(p.score->score_mod.get(), t, raw, sink);
  }
}

bool has_score_mod(const FlexParams& p) { return p.score && p.score->score_f; }

/// A run of keys one query block reads: [k0, k0 + n), through mask_mod when partial.
struct KeyRun {
  int64_t k0, n;
  bool partial;
};

/// Full blocks next to each other merge into runs of up to this many keys: GEMMs of 256 keys
/// run ~15% faster than two of 128 here (the SDPA kernel's tile), and a causal mask's full
/// blocks are all adjacent.
constexpr int64_t kMaxRunKeys = 256;

int64_t max_run_keys(const FlexParams& p) {
  return std::max(p.block_kv, kMaxRunKeys / p.block_kv * p.block_kv);
}

/// Elements of one score tile buffer: no larger than the problem needs (short sequences with the
/// default 128-blocks).
size_t tile_elems(const FlexParams& p) {
  return static_cast<size_t>(std::min(p.block_q, p.base.L) * std::min(max_run_keys(p), p.base.S));
}

/// Per-worker copies of the captured tables' gradients cost threads × table size: beyond this
/// many bytes in all, the workers add into one shared buffer with atomic adds instead.
constexpr size_t kMaxPrivateGradBytes = size_t{64} << 20;

/// The key runs one query block reads: its full blocks (merged where adjacent), then its
/// partial ones.
void runs_of(const FlexParams& p, int64_t b, int64_t h, int64_t qb, std::vector<KeyRun>& out) {
  out.clear();
  const int64_t S = p.base.S, BK = p.block_kv, cap = max_run_keys(p);
  auto add_full = [&](int64_t kb) {
    const int64_t k0 = kb * BK, n = std::min(BK, S - k0);
    if (!out.empty() && !out.back().partial && out.back().k0 + out.back().n == k0 &&
        out.back().n + n <= cap)
      out.back().n += n;
    else
      out.push_back({k0, n, false});
  };
  if (!p.kv_num) {
    for (int64_t kb = 0; kb < p.kv_blocks; ++kb) add_full(kb);
    return;
  }
  const int64_t mb = p.mask_batch == 1 ? 0 : b, mh = p.mask_heads == 1 ? 0 : h;
  const int64_t row = (mb * p.mask_heads + mh) * p.q_blocks + qb;
  const int32_t* full = p.full_idx + row * p.kv_blocks;
  const int32_t* part = p.kv_idx + row * p.kv_blocks;
  for (int32_t i = 0; i < p.full_num[row]; ++i) add_full(full[i]);
  for (int32_t i = 0; i < p.kv_num[row]; ++i) {
    const int64_t k0 = int64_t{part[i]} * BK;
    out.push_back({k0, std::min(BK, S - k0), true});
  }
}

template <class U>
U* row_at(U* base, const SdpaStrides& st, int64_t b, int64_t h, int64_t r) {
  return base + b * st.bs + h * st.hs + r * st.rs;
}

template <class T, class A>
void forward_typed(const FlexParams& fp) {
  const SdpaParams& p = fp.base;
  const T* q = static_cast<const T*>(p.q);
  const T* k = static_cast<const T*>(p.k);
  const T* v = static_cast<const T*>(p.v);
  T* out = static_cast<T*>(p.out);
  A* lse = static_cast<A*>(p.lse);
  const int64_t L = p.L, E = p.E, Ev = p.Ev, BQ = fp.block_q;
  const int64_t group = p.heads / p.kv_heads;
  const A scale = static_cast<A>(p.scale), inf = std::numeric_limits<A>::infinity();
  std::atomic<bool> ok{true};
  parallel_for(0, p.batch * p.heads * fp.q_blocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<A> scores(tile_elems(fp));
    std::vector<A> acc(static_cast<size_t>(BQ * Ev)), row_mx(BQ), row_sum(BQ);
    std::vector<A> qbuf, kbuf, vbuf, obuf(static_cast<size_t>(Ev));
    std::vector<KeyRun> runs;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t bh = item / fp.q_blocks, qb = item % fp.q_blocks, q0 = qb * BQ;
      const int64_t b = bh / p.heads, h = bh % p.heads, kvh = h / group;
      const int64_t m = std::min(BQ, L - q0);
      const Tile<A> qt = rows_as<T, A>(row_at(q, p.q_st, b, h, q0), m, E, p.q_st.rs, qbuf);
      std::fill(acc.begin(), acc.begin() + m * Ev, A(0));
      std::fill(row_mx.begin(), row_mx.end(), -inf);
      std::fill(row_sum.begin(), row_sum.end(), A(0));
      runs_of(fp, b, h, qb, runs);
      for (const auto& [k0, n, partial] : runs) {
        const Tile<A> kt = rows_as<T, A>(row_at(k, p.k_st, b, kvh, k0), n, E, p.k_st.rs, kbuf);
        const Tile<A> vt = rows_as<T, A>(row_at(v, p.v_st, b, kvh, k0), n, Ev, p.v_st.rs, vbuf);
        if (!gemm(false, true, m, n, E, scale, qt.data, qt.ld, kt.data, kt.ld, A(0), scores.data(),
                  n))
          ok = false;
        const FlexTile<A> tile{scores.data(), n, b, h, q0, m, k0, n};
        if (partial) apply_mask_mod(fp, tile);  // first, so score_mod skips masked positions
        apply_score_mod(fp, tile);
        online_softmax_rows(scores.data(), m, n, row_mx.data(), row_sum.data(), acc.data(), Ev);
        if (!gemm(false, false, m, Ev, n, A(1), scores.data(), n, vt.data, vt.ld, A(1), acc.data(),
                  Ev))
          ok = false;
      }
      finish_rows<T>(m, Ev, acc.data(), row_mx.data(), row_sum.data(), obuf.data(),
                     lse + bh * L + q0,
                     [&](int64_t r) { return row_at(out, p.out_st, b, h, q0 + r); });
    }
  });
  EMBER_CHECK(ok.load(), "flex_attention: a GEMM of the fused kernel failed");
}

template <class T, class A>
void backward_typed(const FlexBackwardParams& bp) {
  const FlexParams& fp = bp.fwd;
  const SdpaParams& p = fp.base;
  const T* q = static_cast<const T*>(p.q);
  const T* k = static_cast<const T*>(p.k);
  const T* v = static_cast<const T*>(p.v);
  const T* out = static_cast<const T*>(p.out);
  const A* lse = static_cast<const A*>(p.lse);
  const T* dout = static_cast<const T*>(bp.dout);
  T* dq = static_cast<T*>(bp.dq);
  T* dk = static_cast<T*>(bp.dk);
  T* dv = static_cast<T*>(bp.dv);
  const int64_t L = p.L, S = p.S, E = p.E, Ev = p.Ev, BQ = fp.block_q;
  const int64_t group = p.heads / p.kv_heads;
  const A scale = static_cast<A>(p.scale);
  const bool modded = has_score_mod(fp);
  std::atomic<bool> ok{true};
  std::mutex sum_lock;
  size_t table_bytes = 0;
  for (int i = 0; i < bp.captured; ++i) table_bytes += static_cast<size_t>(bp.numel[i]) * 8;
  const bool shared_grads =
      table_bytes * static_cast<size_t>(std::max(1, get_num_threads())) > kMaxPrivateGradBytes;
  parallel_for(0, p.batch * p.kv_heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<A> pt(tile_elems(fp)), dpt(pt.size());
    std::vector<A> raw(modded ? pt.size() : 0);
    std::vector<A> dq_acc(static_cast<size_t>(BQ * E)), row_d(BQ);
    std::vector<A> dk_acc(static_cast<size_t>(S * E)), dv_acc(static_cast<size_t>(S * Ev));
    std::vector<A> qbuf, dobuf, obuf, kbuf, vbuf;
    std::vector<KeyRun> runs;
    // This worker's share of the captured tables' gradients (or, when large, the shared one).
    std::vector<std::vector<double>> table_grads(shared_grads ? 0
                                                              : static_cast<size_t>(bp.captured));
    std::vector<double*> grad_ptrs(static_cast<size_t>(bp.captured));
    for (int i = 0; i < bp.captured; ++i) {
      if (shared_grads) {
        grad_ptrs[i] = bp.grads[i];
        continue;
      }
      table_grads[i].assign(static_cast<size_t>(bp.numel[i]), 0.0);
      grad_ptrs[i] = table_grads[i].data();
    }
    FlexGradSink sink{bp.tables, grad_ptrs.data(), bp.captured, 0, shared_grads};
    for (int64_t item = begin; item < end; ++item) {
      const int64_t b = item / p.kv_heads, g = item % p.kv_heads;
      std::fill(dk_acc.begin(), dk_acc.end(), A(0));
      std::fill(dv_acc.begin(), dv_acc.end(), A(0));
      for (int64_t h = g * group; h < (g + 1) * group; ++h) {
        const int64_t bh = b * p.heads + h;
        for (int64_t qb = 0; qb < fp.q_blocks; ++qb) {
          const int64_t q0 = qb * BQ, m = std::min(BQ, L - q0);
          const Tile<A> qt = rows_as<T, A>(row_at(q, p.q_st, b, h, q0), m, E, p.q_st.rs, qbuf);
          const Tile<A> dot =
              rows_as<T, A>(row_at(dout, bp.dout_st, b, h, q0), m, Ev, bp.dout_st.rs, dobuf);
          const Tile<A> ot =
              rows_as<T, A>(row_at(out, p.out_st, b, h, q0), m, Ev, p.out_st.rs, obuf);
          for (int64_t r = 0; r < m; ++r)
            row_d[r] = dot_row(dot.data + r * dot.ld, ot.data + r * ot.ld, Ev);
          std::fill(dq_acc.begin(), dq_acc.begin() + m * E, A(0));
          runs_of(fp, b, h, qb, runs);
          for (const auto& [k0, n, partial] : runs) {
            const Tile<A> kt = rows_as<T, A>(row_at(k, p.k_st, b, g, k0), n, E, p.k_st.rs, kbuf);
            const Tile<A> vt = rows_as<T, A>(row_at(v, p.v_st, b, g, k0), n, Ev, p.v_st.rs, vbuf);
            A* scores = modded ? raw.data() : pt.data();
            bool ok_tile =
                gemm(false, true, m, n, E, scale, qt.data, qt.ld, kt.data, kt.ld, A(0), scores, n);
            if (modded) std::copy(raw.begin(), raw.begin() + m * n, pt.begin());
            const FlexTile<A> tile{pt.data(), n, b, h, q0, m, k0, n};
            if (partial) apply_mask_mod(fp, tile);
            apply_score_mod(fp, tile);
            for (int64_t r = 0; r < m; ++r) exp_shifted(pt.data() + r * n, n, lse[bh * L + q0 + r]);
            ok_tile = ok_tile && gemm(true, false, n, Ev, m, A(1), pt.data(), n, dot.data, dot.ld,
                                      A(1), dv_acc.data() + k0 * Ev, Ev);
            ok_tile = ok_tile && gemm(false, true, m, n, Ev, A(1), dot.data, dot.ld, vt.data, vt.ld,
                                      A(0), dpt.data(), n);
            for (int64_t r = 0; r < m; ++r)
              ds_row(pt.data() + r * n, dpt.data() + r * n, n, row_d[r]);
            if (modded)
              score_mod_backward(fp, FlexTile<A>{dpt.data(), n, b, h, q0, m, k0, n}, raw.data(),
                                 sink);
            ok_tile = ok_tile && gemm(false, false, m, E, n, scale, dpt.data(), n, kt.data, kt.ld,
                                      A(1), dq_acc.data(), E);
            ok_tile = ok_tile && gemm(true, false, n, E, m, scale, dpt.data(), n, qt.data, qt.ld,
                                      A(1), dk_acc.data() + k0 * E, E);
            if (!ok_tile) ok = false;
          }
          for (int64_t r = 0; r < m; ++r)
            store_rows(dq_acc.data() + r * E, E, row_at(dq, bp.dq_st, b, h, q0 + r));
        }
      }
      for (int64_t r = 0; r < S; ++r) {
        store_rows(dk_acc.data() + r * E, E, row_at(dk, bp.dk_st, b, g, r));
        store_rows(dv_acc.data() + r * Ev, Ev, row_at(dv, bp.dv_st, b, g, r));
      }
    }
    std::lock_guard<std::mutex> hold(sum_lock);
    for (size_t i = 0; i < table_grads.size(); ++i)
      for (int64_t j = 0; j < bp.numel[i]; ++j) bp.grads[i][j] += table_grads[i][j];
    *bp.errors |= sink.errors;
  });
  EMBER_CHECK(ok.load(), "flex_attention backward: a GEMM of the fused kernel failed");
}

void cpu_flex_fused(ScalarType dtype, const FlexParams& p) {
  if (p.base.heads == 0 || p.base.kv_heads == 0) return;  // nothing to compute
  cpu::sync_omp_threads();
  visit_attention_dtype(dtype, [&](auto t, auto a) { forward_typed<decltype(t), decltype(a)>(p); });
}

void cpu_flex_fused_backward(ScalarType dtype, const FlexBackwardParams& p) {
  if (p.fwd.base.heads == 0 || p.fwd.base.kv_heads == 0) return;  // nothing to compute
  cpu::sync_omp_threads();
  visit_attention_dtype(dtype,
                        [&](auto t, auto a) { backward_typed<decltype(t), decltype(a)>(p); });
}

}  // namespace

void register_cpu_flex_attention_kernels() {
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kBFloat16) | dtype_bit(kHalf);
  register_kernel<OpId::flex_fused>(kCPU, &cpu_flex_fused, dtypes);
  register_kernel<OpId::flex_fused_backward>(kCPU, &cpu_flex_fused_backward, dtypes);
}

}  // namespace ember
