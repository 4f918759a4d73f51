// CPU kernels of fused scaled dot-product attention (kernels/common/attention_params.h), in the
// manner of FlashAttention-2: the [L, S] score matrix is never stored.
//
// Forward: each work item is one block of kBlockQ query rows of one (batch, head). It walks the
// key/value blocks of kBlockK rows, computes the block's scores with one GEMM, keeps a running
// row maximum and sum (online softmax), rescales its output accumulator when the maximum grows
// and adds P·V with a second GEMM. It writes the output and each row's logsumexp, which is all
// backward needs to recompute P. Causal attention stops at the diagonal block.
//
// Backward: each work item is one (batch, key/value head), so the key and value gradients it
// accumulates are its own (grouped-query heads sharing a key/value head run in the same item).
// Per query block and key block it recomputes P from the scores and the logsumexp, then
// dV += Pᵀ·dO, dP = dO·Vᵀ, dS = P∘(dP − rowsum(dO∘O)), dQ += scale·dS·K, dK += scale·dSᵀ·Q:
// five GEMMs per tile pair.
//
// The GEMMs run single-threaded inside the work items: oneDNN's sgemm (one thread inside an
// OpenMP region) for float, Eigen for double. bfloat16 and float16 tiles are widened to float
// as they are read, so they accumulate in float, as PyTorch's CPU kernel does.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/core/half.h"
#include "kernels/common/attention_params.h"
#include "kernels/cpu/attention_tiles.h"
#include "src/core/check.h"
#include "src/core/parallel.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace {

using namespace attention_tiles;

// Query rows per forward work item and key rows per tile: a 128 x 256 float score tile (128 KiB)
// and, backward, its gradient stay in L2 with the operand tiles.
constexpr int64_t kBlockQ = 128;
constexpr int64_t kBlockK = 256;

/// Adds the mask row and the causal cut to one row of scores: query index l, keys k0 .. k0+n.
template <class A>
void mask_row(A* s, int64_t n, const A* mask_row, int64_t mask_ss, bool causal, int64_t l,
              int64_t k0) {
  if (mask_row) {
    if (mask_ss == 1) {
      for (int64_t j = 0; j < n; ++j) s[j] += mask_row[j];
    } else {
      for (int64_t j = 0; j < n; ++j) s[j] += mask_row[j * mask_ss];
    }
  }
  if (causal)
    for (int64_t j = std::max<int64_t>(0, l + 1 - k0); j < n; ++j)
      s[j] = -std::numeric_limits<A>::infinity();
}

/// What a work item needs of the params, typed.
template <class T, class A>
struct Views {
  explicit Views(const SdpaParams& p)
      : q(static_cast<const T*>(p.q)),
        k(static_cast<const T*>(p.k)),
        v(static_cast<const T*>(p.v)),
        mask(static_cast<const A*>(p.mask)),
        scale(static_cast<A>(p.scale)),
        group(p.heads / p.kv_heads),
        p(p) {}
  const T *q, *k, *v;
  const A* mask;
  A scale;
  int64_t group;
  const SdpaParams& p;

  /// Row r of head h of batch b of an operand.
  template <class U>
  static U* row(U* base, const SdpaStrides& st, int64_t b, int64_t h, int64_t r) {
    return base + b * st.bs + h * st.hs + r * st.rs;
  }
  const A* mask_at(int64_t b, int64_t h, int64_t l) const {
    return mask ? mask + b * p.mask_bs + h * p.mask_hs + l * p.mask_ls : nullptr;
  }
  /// Keys a query block [q0, q0 + m) attends to: all, or up to its last row's diagonal.
  int64_t kv_end(int64_t q0, int64_t m) const { return p.causal ? std::min(p.S, q0 + m) : p.S; }
};

template <class T, class A>
void forward_typed(const SdpaParams& p) {
  const Views<T, A> in(p);
  T* out = static_cast<T*>(p.out);
  A* lse = static_cast<A*>(p.lse);
  const int64_t L = p.L, E = p.E, Ev = p.Ev;
  const int64_t qblocks = (L + kBlockQ - 1) / kBlockQ;
  const A inf = std::numeric_limits<A>::infinity();
  std::atomic<bool> ok{true};
  parallel_for(0, p.batch * p.heads * qblocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<A> scores(static_cast<size_t>(kBlockQ * kBlockK));
    std::vector<A> acc(static_cast<size_t>(kBlockQ * Ev)), row_mx(kBlockQ), row_sum(kBlockQ);
    std::vector<A> qbuf, kbuf, vbuf, obuf(static_cast<size_t>(Ev));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t bh = item / qblocks, q0 = item % qblocks * kBlockQ;
      const int64_t b = bh / p.heads, h = bh % p.heads, kvh = h / in.group;
      const int64_t m = std::min(kBlockQ, L - q0);
      const Tile<A> qt = rows_as<T, A>(in.row(in.q, p.q_st, b, h, q0), m, E, p.q_st.rs, qbuf);
      std::fill(acc.begin(), acc.begin() + m * Ev, A(0));
      std::fill(row_mx.begin(), row_mx.end(), -inf);
      std::fill(row_sum.begin(), row_sum.end(), A(0));
      const int64_t kv_end = in.kv_end(q0, m);
      for (int64_t k0 = 0; k0 < kv_end; k0 += kBlockK) {
        const int64_t n = std::min(kBlockK, kv_end - k0);
        const Tile<A> kt = rows_as<T, A>(in.row(in.k, p.k_st, b, kvh, k0), n, E, p.k_st.rs, kbuf);
        const Tile<A> vt = rows_as<T, A>(in.row(in.v, p.v_st, b, kvh, k0), n, Ev, p.v_st.rs, vbuf);
        if (!gemm(false, true, m, n, E, in.scale, qt.data, qt.ld, kt.data, kt.ld, A(0),
                  scores.data(), n))
          ok = false;
        for (int64_t r = 0; r < m; ++r) {
          const A* mr = in.mask_at(b, h, q0 + r);
          mask_row(scores.data() + r * n, n, mr ? mr + k0 * p.mask_ss : nullptr, p.mask_ss,
                   p.causal, q0 + r, k0);
        }
        online_softmax_rows(scores.data(), m, n, row_mx.data(), row_sum.data(), acc.data(), Ev);
        if (!gemm(false, false, m, Ev, n, A(1), scores.data(), n, vt.data, vt.ld, A(1), acc.data(),
                  Ev))
          ok = false;
      }
      finish_rows<T>(m, Ev, acc.data(), row_mx.data(), row_sum.data(), obuf.data(),
                     lse + bh * L + q0,
                     [&](int64_t r) { return in.row(out, p.out_st, b, h, q0 + r); });
    }
  });
  EMBER_CHECK(ok.load(), "scaled_dot_product_attention: a GEMM of the fused kernel failed");
}

template <class T, class A>
void backward_typed(const SdpaBackwardParams& bp) {
  const SdpaParams& p = bp.fwd;
  const Views<T, A> in(p);
  const T* out = static_cast<const T*>(p.out);
  const A* lse = static_cast<const A*>(p.lse);
  const T* dout = static_cast<const T*>(bp.dout);
  T* dq = static_cast<T*>(bp.dq);
  T* dk = static_cast<T*>(bp.dk);
  T* dv = static_cast<T*>(bp.dv);
  const int64_t L = p.L, S = p.S, E = p.E, Ev = p.Ev;
  std::atomic<bool> ok{true};
  parallel_for(0, p.batch * p.kv_heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<A> pt(static_cast<size_t>(kBlockQ * kBlockK)), dpt(pt.size());
    std::vector<A> dq_acc(static_cast<size_t>(kBlockQ * E)), row_d(kBlockQ);
    std::vector<A> dk_acc(static_cast<size_t>(S * E)), dv_acc(static_cast<size_t>(S * Ev));
    std::vector<A> qbuf, dobuf, obuf, kbuf, vbuf;
    std::vector<int64_t> written(static_cast<size_t>((S + kBlockK - 1) / kBlockK));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t b = item / p.kv_heads, g = item % p.kv_heads;
      // A key block's first contribution overwrites (beta 0) instead of adding to zeros; rows no
      // query reaches are zeroed at the end.
      std::fill(written.begin(), written.end(), 0);
      for (int64_t h = g * in.group; h < (g + 1) * in.group; ++h) {
        const int64_t bh = b * p.heads + h;
        for (int64_t q0 = 0; q0 < L; q0 += kBlockQ) {
          const int64_t m = std::min(kBlockQ, L - q0);
          const Tile<A> qt = rows_as<T, A>(in.row(in.q, p.q_st, b, h, q0), m, E, p.q_st.rs, qbuf);
          const Tile<A> dot =
              rows_as<T, A>(in.row(dout, bp.dout_st, b, h, q0), m, Ev, bp.dout_st.rs, dobuf);
          const Tile<A> ot =
              rows_as<T, A>(in.row(out, p.out_st, b, h, q0), m, Ev, p.out_st.rs, obuf);
          for (int64_t r = 0; r < m; ++r)
            row_d[r] = dot_row(dot.data + r * dot.ld, ot.data + r * ot.ld, Ev);
          const int64_t kv_end = in.kv_end(q0, m);
          if (kv_end == 0) std::fill(dq_acc.begin(), dq_acc.begin() + m * E, A(0));
          for (int64_t k0 = 0; k0 < kv_end; k0 += kBlockK) {
            const int64_t n = std::min(kBlockK, kv_end - k0);
            const Tile<A> kt = rows_as<T, A>(in.row(in.k, p.k_st, b, g, k0), n, E, p.k_st.rs, kbuf);
            const Tile<A> vt =
                rows_as<T, A>(in.row(in.v, p.v_st, b, g, k0), n, Ev, p.v_st.rs, vbuf);
            // Rows of this key block written so far: none means overwrite (beta 0); a causal
            // block can be reached partly first, so rows past them are zeroed before adding.
            int64_t& done = written[static_cast<size_t>(k0 / kBlockK)];
            if (done > 0 && n > done) {
              std::fill(dk_acc.begin() + (k0 + done) * E, dk_acc.begin() + (k0 + n) * E, A(0));
              std::fill(dv_acc.begin() + (k0 + done) * Ev, dv_acc.begin() + (k0 + n) * Ev, A(0));
            }
            const A kv_beta = done > 0 ? A(1) : A(0), q_beta = k0 == 0 ? A(0) : A(1);
            done = std::max(done, n);
            bool ok_tile = gemm(false, true, m, n, E, in.scale, qt.data, qt.ld, kt.data, kt.ld,
                                A(0), pt.data(), n);
            for (int64_t r = 0; r < m; ++r) {
              A* s = pt.data() + r * n;
              const A* mr = in.mask_at(b, h, q0 + r);
              mask_row(s, n, mr ? mr + k0 * p.mask_ss : nullptr, p.mask_ss, p.causal, q0 + r, k0);
              exp_shifted(s, n, lse[bh * L + q0 + r]);  // P
            }
            ok_tile = ok_tile && gemm(true, false, n, Ev, m, A(1), pt.data(), n, dot.data, dot.ld,
                                      kv_beta, dv_acc.data() + k0 * Ev, Ev);
            ok_tile = ok_tile && gemm(false, true, m, n, Ev, A(1), dot.data, dot.ld, vt.data, vt.ld,
                                      A(0), dpt.data(), n);
            for (int64_t r = 0; r < m; ++r)
              ds_row(pt.data() + r * n, dpt.data() + r * n, n, row_d[r]);
            ok_tile = ok_tile && gemm(false, false, m, E, n, in.scale, dpt.data(), n, kt.data,
                                      kt.ld, q_beta, dq_acc.data(), E);
            ok_tile = ok_tile && gemm(true, false, n, E, m, in.scale, dpt.data(), n, qt.data, qt.ld,
                                      kv_beta, dk_acc.data() + k0 * E, E);
            if (!ok_tile) ok = false;
          }
          for (int64_t r = 0; r < m; ++r)
            store_rows(dq_acc.data() + r * E, E, in.row(dq, bp.dq_st, b, h, q0 + r));
        }
      }
      for (size_t kb = 0; kb < written.size(); ++kb) {
        const int64_t k0 = static_cast<int64_t>(kb) * kBlockK, end = std::min(k0 + kBlockK, S);
        std::fill(dk_acc.begin() + (k0 + written[kb]) * E, dk_acc.begin() + end * E, A(0));
        std::fill(dv_acc.begin() + (k0 + written[kb]) * Ev, dv_acc.begin() + end * Ev, A(0));
      }
      for (int64_t r = 0; r < S; ++r) {
        store_rows(dk_acc.data() + r * E, E, in.row(dk, bp.dk_st, b, g, r));
        store_rows(dv_acc.data() + r * Ev, Ev, in.row(dv, bp.dv_st, b, g, r));
      }
    }
  });
  EMBER_CHECK(ok.load(),
              "scaled_dot_product_attention backward: a GEMM of the fused kernel failed");
}

void cpu_sdpa_fused(ScalarType dtype, const SdpaParams& p) {
  cpu::sync_omp_threads();
  visit_attention_dtype(dtype, [&](auto t, auto a) { forward_typed<decltype(t), decltype(a)>(p); });
}

void cpu_sdpa_fused_backward(ScalarType dtype, const SdpaBackwardParams& p) {
  cpu::sync_omp_threads();
  visit_attention_dtype(dtype,
                        [&](auto t, auto a) { backward_typed<decltype(t), decltype(a)>(p); });
}

}  // namespace

void register_cpu_attention_kernels() {
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kBFloat16) | dtype_bit(kHalf);
  register_kernel<OpId::sdpa_fused>(kCPU, &cpu_sdpa_fused, dtypes);
  register_kernel<OpId::sdpa_fused_backward>(kCPU, &cpu_sdpa_fused_backward, dtypes);
}

}  // namespace ember
