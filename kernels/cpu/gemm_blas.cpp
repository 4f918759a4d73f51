// float32/float64 GEMM on the CPU. Each product goes to OpenBLAS or to oneDNN's sgemm, whichever
// measured faster for its size on the CPU the kernels are compiled for; transposed operands reach
// BLAS as transpose flags, never as copies. float64 always goes to OpenBLAS (oneDNN has no dgemm).
//
// Both tables assume OpenBLAS runs a kernel set for this CPU. When it has fallen back to an old
// one (blas_core.cpp: a CPU newer than its table), float32 goes to oneDNN at every size and
// float64 to Eigen compiled for this CPU (gemm_eigen.cpp).
//
// sgemm, row-major C = A·B, square n, GFLOP/s, best of 5 runs, one library per process so
// neither pool's spinning threads steal from the other (OpenBLAS 0.3.21 pthreads, oneDNN 2.6.3
// OpenMP).
//
// AVX-512 (2-core Sapphire Rapids VM; napkin peak 2 FMA ports x 16 floats x 2 flops x ~2.6 GHz
// = ~166 GFLOP/s per core, the §7 probe measures 234 with turbo). 'N','N':
//     n     | 1 thread: OpenBLAS  oneDNN | 2 threads: OpenBLAS  oneDNN
//     64    |           165       158    |            168       150
//     96    |           166       184    |            166       238
//     128   |           137       198    |            176       289
//     256   |           159       181    |            257       343
//     512   |           166       182    |            286       346
//     1024  |           176       199    |            345       382
//     2048  |           181       190    |            356       375
// 'T','N' is the same picture; with B transposed ('N','T') oneDNN wins at n = 64 too (130 vs
// 102). So: oneDNN everywhere, except products of at most 64³ with B not transposed (OpenBLAS,
// which runs those on one thread: oneDNN splits even n = 64 over both cores and loses).
//
// AVX2 (2-core AMD EPYC VM, FMA; peak ~96 GFLOP/s per core):
//     n     | 1 thread: OpenBLAS  oneDNN | 2 threads: OpenBLAS  oneDNN
//     64    |            66.4      93.6  |             66.4     130.2
//     128   |            79.9      97.5  |            142.4     181.3
//     256   |            89.2      95.5  |            168.8     189.5
//     320   |            90.7      83.1  |            153.9     184.6
//     512   |            92.0      90.3  |            166.5     178.1
//     1024  |            92.2      86.0  |            176.3     159.4
//     2048  |            93.9      90.3  |            180.0     176.0
//     (A transposed, 'T','N': same picture, except oneDNN drops to 62 / 126 at n = 512.)
// There small products are dominated by per-call overhead and thread start-up, where oneDNN is
// ahead, and large ones by FMA throughput, where OpenBLAS's kernels are a few percent ahead. So:
// oneDNN up to m·n·k = 256³ on one thread (320³ with more), OpenBLAS above.
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <type_traits>
#include <vector>

#include "ember/core/threads.h"
#include "kernels/cpu/gemm_cpu.h"
#include "src/core/check.h"
#include "src/core/parallel.h"

namespace ember::cpu {

void sync_omp_threads() {
  if (omp_in_parallel()) return;
  // oneDNN divides its work among the threads it asks OpenMP for and assumes it gets them all; a
  // smaller team leaves part undone (under OMP_THREAD_LIMIT=1 a two-thread convolution's weight
  // gradient came back half computed). So never ask for more than OpenMP's thread limit, and keep
  // the runtime from shrinking teams on its own (OMP_DYNAMIC).
  const int want = std::min(get_num_threads(), omp_get_thread_limit());
  if (omp_get_dynamic()) omp_set_dynamic(0);
  if (omp_get_max_threads() != want) omp_set_num_threads(want);
}

namespace {

// Batches of small products run one product per thread instead of splitting each product: two
// single-thread oneDNN products at n = 64 give 2 x 93 GFLOP/s against 130 for one split product.
// Both dtypes up to 128³ (float64 stopped at 64³ while OpenBLAS ran its own threads above it):
// a larger product splits over the team itself (oneDNN's own split, or openblas_gemm_on_team,
// whose 256k multiply-adds per thread 128³ passes up to 8 threads).
constexpr double kBatchAcrossMaxMnk = 128.0 * 128 * 128;
// Below ~250k multiply-adds (a few microseconds) per thread, waking a thread costs more than it
// saves.
constexpr double kMinMnkPerThread = 262144;

#if defined(__AVX512F__)
constexpr double kOpenblasMaxMnk = 64.0 * 64 * 64;
bool prefer_onednn(bool /*ta*/, bool tb, int64_t m, int64_t n, int64_t k) {
  return tb || double(m) * double(n) * double(k) > kOpenblasMaxMnk;
}
#else
constexpr double kOnednnMaxMnkOneThread = 256.0 * 256 * 256;
constexpr double kOnednnMaxMnkThreaded = 320.0 * 320 * 320;
bool prefer_onednn(bool /*ta*/, bool /*tb*/, int64_t m, int64_t n, int64_t k) {
  const double mnk = double(m) * double(n) * double(k);
  const bool threaded = !omp_in_parallel() && get_num_threads() > 1;
  return mnk <= (threaded ? kOnednnMaxMnkThreaded : kOnednnMaxMnkOneThread);
}
#endif

// How row-major BLAS can read a rows x cols matrix with element strides (rs, cs) in place: plain
// with leading dimension rs when the columns are unit-stride, transposed with leading dimension cs
// when the rows are. BLAS never steps along a size-1 dim, so its stride does not matter.
struct Layout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};
Layout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  const int64_t min_ld_plain = std::max<int64_t>(1, cols),
                min_ld_trans = std::max<int64_t>(1, rows);
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= min_ld_plain))
    return {true, false, rows == 1 ? min_ld_plain : rs};
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= min_ld_trans))
    return {true, true, cols == 1 ? min_ld_trans : cs};
  return {};
}

bool fits_blasint(std::initializer_list<int64_t> v) {
  for (int64_t x : v)
    if (x > INT_MAX) return false;
  return true;
}

void onednn_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  EMBER_CHECK(st == dnnl_success, "mm: dnnl_sgemm failed with status {} for m={} n={} k={}",
              static_cast<int>(st), m, n, k);
}

// With B transposed (C = A·Bᵀ: every nn::Linear forward), oneDNN 2.6.3 splits one product over
// its threads worse than one single-thread product per thread on that thread's own block of C's
// columns (B's rows). 2 threads of a Zen 5 EPYC VM (peak 266 GFLOP/s per thread), best of 9 x 100
// calls, GFLOP/s, oneDNN's split vs ours: m,n,k = 64,512,784 (the MLP's first layer) 319 vs 404;
// 64,256,512: 215 vs 370; 2048,256,1024 (a Transformer's feed-forward out): 346 vs 461; 256³: 403
// vs 461; 1024³: 472 vs 478; 700,1024,128: tied. Blocks of 64 columns gain less or nothing
// (128³: 315 vs 372, but 64,128,1024: 144 vs 143, where one thread alone does 162), and blocks of
// 5000 lose a little (700,10000,256: 480 vs 468): so 128 to 1024 columns per thread, the range
// measured to win (on 2 threads only); outside it oneDNN splits. The other transpositions
// measured the same either way.
constexpr int64_t kSplitMinColumnsPerThread = 128;
constexpr int64_t kSplitMaxColumnsPerThread = 1024;

}  // namespace

bool openblas_gemm_splits(int64_t m, int64_t n, int64_t k, int threads) {
  return threads > 1 && std::max(m, n) >= 16 * threads &&
         double(m) * double(n) * double(k) >= kMinMnkPerThread * threads;
}

bool sgemm_splits_columns(bool tb, int64_t n, int threads) {
  return tb && threads > 1 && n >= kSplitMinColumnsPerThread * threads &&
         n <= kSplitMaxColumnsPerThread * threads;
}

namespace {

// The start of thread t's block of C's n columns (or rows): even shares, each start rounded down
// to a multiple of 16 (whole 16-float vectors), so the last block takes what rounding leaves.
int64_t split_start(int64_t t, int64_t n, int threads) {
  return t == threads ? n : t * n / threads / 16 * 16;
}

// Runs block(s0, s1) for each thread's block [s0, s1) of len rows or columns, one per thread of
// the team (both splits below share it).
template <class Block>
void split_over_team(int64_t len, int threads, const Block& block) {
  parallel_for(0, threads, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t s0 = split_start(t, len, threads), s1 = split_start(t + 1, len, threads);
      if (s1 > s0) block(s0, s1);
    }
  });
}

void sgemm_split_columns(bool ta, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                         int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                         int64_t ldc, int threads) {
  // Inside this parallel region oneDNN runs each product on the calling thread alone.
  split_over_team(n, threads, [&](int64_t n0, int64_t n1) {
    onednn_sgemm(ta, true, m, n1 - n0, k, alpha, a, lda, b + n0 * ldb, ldb, beta, c + n0, ldc);
  });
}

// cblas_sgemm or cblas_dgemm, row-major.
template <class T>
void openblas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                   int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const auto gemm = [](auto... args) {
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(args...);
    else
      cblas_dgemm(args...);
  };
  gemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
       static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha, a,
       static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
}

// One OpenBLAS product on Ember's OpenMP team. OpenBLAS itself runs on its caller's thread only
// (blas_core.cpp pins it there), so a product large enough to share runs as one OpenBLAS call per
// thread on its own block of C's rows, or of its columns when those are more. Before, OpenBLAS
// split such products over its own pthreads, which then spun for work beside OpenMP's spinning
// threads: on 2 cores the two pools took turns. 2-core AMD EPYC (Zen 3, AVX2) VM, where products
// above 320³ go to OpenBLAS, ms per step of ember_compare_train_step on 2 threads, interleaved:
// transformer_sgd 160-207 -> 68-74 (one thread: 135), lstm_sgd 151-164 -> 109-116.
template <class T>
void openblas_gemm_on_team(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                           int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  // Products too small to split on any team skip the OpenMP queries (AVX-512's small products).
  if (double(m) * double(n) * double(k) < 2 * kMinMnkPerThread) {
    openblas_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  sync_omp_threads();
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (!openblas_gemm_splits(m, n, k, threads)) {
    openblas_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  if (m >= n)
    split_over_team(m, threads, [&](int64_t s0, int64_t s1) {
      openblas_gemm(ta, tb, s1 - s0, n, k, alpha, ta ? a + s0 : a + s0 * lda, lda, b, ldb, beta,
                    c + s0 * ldc, ldc);
    });
  else
    split_over_team(n, threads, [&](int64_t s0, int64_t s1) {
      openblas_gemm(ta, tb, m, s1 - s0, k, alpha, a, lda, tb ? b + s0 * ldb : b + s0, ldb, beta,
                    c + s0, ldc);
    });
}

void blas_call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (openblas_core_is_fallback() || prefer_onednn(ta, tb, m, n, k) ||
      !fits_blasint({m, n, k, lda, ldb, ldc})) {
    sync_omp_threads();
    // OpenMP's team, which sync_omp_threads keeps at Ember's thread count within OpenMP's limit:
    // more blocks than threads would run some one after another.
    const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
    if (sgemm_splits_columns(tb, n, threads)) {
      sgemm_split_columns(ta, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, threads);
      return;
    }
    onednn_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  openblas_gemm_on_team(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void blas_call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (openblas_core_is_fallback()) {
    sync_omp_threads();
    eigen_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  EMBER_CHECK(fits_blasint({m, n, k, lda, ldb, ldc}),
              "mm: float64 matrices with a dim or leading dimension above {} are not supported: "
              "m={} n={} k={}. Hint: split the product",
              INT_MAX, m, n, k);
  openblas_gemm_on_team(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Copies a strided rows x cols matrix into a dense row-major buffer (the rare layouts BLAS can't
// read: expanded or doubly-strided operands).
template <class T>
void pack(const T* src, int64_t rows, int64_t cols, int64_t rs, int64_t cs, T* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src[i * rs + j * cs];
}

// One product, k > 0.
template <class T>
void gemm_one(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_rs, int64_t a_cs, const T* b,
              int64_t b_rs, int64_t b_cs, T* c, int64_t c_rs, int64_t c_cs, T alpha, T beta) {
  const Layout lc = blas_layout(m, n, c_rs, c_cs);
  if (lc.ok && lc.trans) {
    // A column-major C: compute Cᵀ = Bᵀ·Aᵀ, which BLAS writes row-major into the same memory.
    gemm_one(n, m, k, b, b_cs, b_rs, a, a_cs, a_rs, c, c_cs, c_rs, alpha, beta);
    return;
  }
  std::vector<T> a_buf, b_buf, c_buf;
  Layout la = blas_layout(m, k, a_rs, a_cs), lb = blas_layout(k, n, b_rs, b_cs);
  if (!la.ok) {
    a_buf.resize(static_cast<size_t>(m * k));
    pack(a, m, k, a_rs, a_cs, a_buf.data());
    a = a_buf.data();
    la = {true, false, k};
  }
  if (!lb.ok) {
    b_buf.resize(static_cast<size_t>(k * n));
    pack(b, k, n, b_rs, b_cs, b_buf.data());
    b = b_buf.data();
    lb = {true, false, n};
  }
  if (lc.ok) {
    blas_call(la.trans, lb.trans, m, n, k, alpha, a, la.ld, b, lb.ld, beta, c, lc.ld);
    return;
  }
  c_buf.assign(static_cast<size_t>(m * n), T(0));
  if (beta != T(0)) pack<T>(c, m, n, c_rs, c_cs, c_buf.data());
  blas_call(la.trans, lb.trans, m, n, k, alpha, a, la.ld, b, lb.ld, beta, c_buf.data(), n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * c_rs + j * c_cs] = c_buf[i * n + j];
}

template <class T>
void gemm_typed(const GemmParams& p) {
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  const T alpha = p.alpha.to<T>(), beta = p.beta.to<T>();
  T* c = static_cast<T*>(p.c);
  if (p.k == 0) {  // an empty sum: C = beta·C, and beta == 0 writes zeros whatever C held
    for (int64_t bi = 0; bi < p.batch; ++bi)
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
          T& x = c[bi * p.c_bs + i * p.c_rs + j * p.c_cs];
          x = beta == T(0) ? T(0) : beta * x;
        }
    return;
  }
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t bi = begin; bi < end; ++bi)
      gemm_one<T>(p.m, p.n, p.k, a + bi * p.a_bs, p.a_rs, p.a_cs, b + bi * p.b_bs, p.b_rs, p.b_cs,
                  c + bi * p.c_bs, p.c_rs, p.c_cs, alpha, beta);
  };
  const double mnk = double(p.m) * double(p.n) * double(p.k);
  if (p.batch > 1 && get_num_threads() > 1 && mnk <= kBatchAcrossMaxMnk) {
    const int64_t grain = std::max<int64_t>(1, static_cast<int64_t>(kMinMnkPerThread / mnk));
    parallel_for(0, p.batch, grain, run);
  } else {
    run(0, p.batch);
  }
}

}  // namespace

void gemm_float(const GemmParams& p) { gemm_typed<float>(p); }
void gemm_double(const GemmParams& p) { gemm_typed<double>(p); }

}  // namespace ember::cpu
