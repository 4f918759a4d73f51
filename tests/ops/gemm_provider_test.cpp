// The GEMM provider choice around OpenBLAS's fallback cores (kernels/cpu/blas_core.cpp): the core
// is reported, a forced old core (OPENBLAS_CORETYPE=Prescott, as tools/test.sh runs the GEMM tests
// a second time) is recognised as a fallback, and the Eigen float64 path it then takes is exact
// for every operand layout, alpha/beta and a NaN-filled C with beta = 0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "kernels/cpu/gemm_cpu.h"

// A named namespace: the test sources are compiled as unity files.
namespace gemm_provider_test {

bool gemm_provider_cpu_has_avx2() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

TEST(GemmProvider, OpenblasCoreIsReported) {
  const std::string core = ember::cpu::openblas_core();
  EXPECT_FALSE(core.empty());
  EXPECT_NE(core, "unknown");
}

TEST(GemmProvider, ForcedOldCoreIsAFallback) {
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (forced == nullptr || std::string(forced) != "Prescott" || !gemm_provider_cpu_has_avx2())
    GTEST_SKIP() << "runs under OPENBLAS_CORETYPE=Prescott on an AVX2 CPU (tools/test.sh)";
  EXPECT_EQ(std::string(ember::cpu::openblas_core()), "Prescott");
  EXPECT_TRUE(ember::cpu::openblas_core_is_fallback());
}

// Row-major op(X) element (i, j) of a matrix stored with leading dimension ld.
double gemm_provider_at(const std::vector<double>& x, bool trans, int64_t ld, int64_t i,
                        int64_t j) {
  return trans ? x[static_cast<size_t>(j * ld + i)] : x[static_cast<size_t>(i * ld + j)];
}

TEST(GemmProvider, EigenDgemmMatchesReferenceForEveryLayout) {
  const int64_t m = 37, n = 29, k = 53;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (double beta : {0.0, 1.0, -0.5}) {
        // Leading dimensions wider than the rows, so strides are honoured, not assumed.
        const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 2, ldc = n + 5;
        std::vector<double> a(static_cast<size_t>((ta ? k : m) * lda)),
            b(static_cast<size_t>((tb ? n : k) * ldb)), c(static_cast<size_t>(m * ldc));
        for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37 * double(i)) + 0.1;
        for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.11 * double(i)) - 0.2;
        for (size_t i = 0; i < c.size(); ++i)
          c[i] = beta == 0.0 ? std::numeric_limits<double>::quiet_NaN() : std::sin(double(i));
        const std::vector<double> c0 = c;
        const double alpha = 1.75;
        ember::cpu::eigen_dgemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                                c.data(), ldc);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double acc = 0, mag = 0;
            for (int64_t q = 0; q < k; ++q) {
              const double t =
                  gemm_provider_at(a, ta, lda, i, q) * gemm_provider_at(b, tb, ldb, q, j);
              acc += t;
              mag += std::abs(t);
            }
            const double c_in = c0[static_cast<size_t>(i * ldc + j)];
            const double expected = alpha * acc + (beta == 0.0 ? 0.0 : beta * c_in);
            const double tol = 8 * std::numeric_limits<double>::epsilon() *
                               (std::abs(alpha) * mag + std::abs(beta * (beta == 0.0 ? 0 : c_in)));
            ASSERT_NEAR(c[static_cast<size_t>(i * ldc + j)], expected, tol)
                << "ta=" << ta << " tb=" << tb << " beta=" << beta << " at (" << i << ", " << j
                << ")";
          }
        // The padding between rows of C is not touched.
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = n; j < ldc; ++j) {
            const size_t at = static_cast<size_t>(i * ldc + j);
            if (std::isnan(c0[at]))
              EXPECT_TRUE(std::isnan(c[at]));
            else
              EXPECT_EQ(c[at], c0[at]);
          }
      }
}

// Restores Ember's thread count when a test leaves, by an ASSERT too.
struct GemmProviderThreadsGuard {
  int saved = ember::get_num_threads();
  ~GemmProviderThreadsGuard() { ember::set_num_threads(saved); }
};

// float32 products with B transposed (nn::Linear's forward) run, on several threads, as one
// single-thread product per thread on its own block of C's columns. Every column of every block
// must be the product's: first, middle and last blocks, ragged widths, A plain and transposed, B
// with a leading dimension wider than k, alpha and beta, checked against float64 with a tolerance
// scaled by each element's magnitude.
TEST(GemmProvider, ColumnSplitProductsMatchFloat64) {
  GemmProviderThreadsGuard guard;
  struct Case {
    int threads;
    int64_t n;
  };
  for (const Case cs : {Case{2, 256}, Case{2, 300}, Case{2, 2048}, Case{3, 400}, Case{10, 1290}}) {
    ember::set_num_threads(cs.threads);
    for (int64_t m : {7, 64})
      for (bool ta : {false, true}) {
        ASSERT_TRUE(ember::cpu::sgemm_splits_columns(true, cs.n, cs.threads))
            << "threads=" << cs.threads << " n=" << cs.n;
        const int64_t k = 96;
        ember::manual_seed(cs.n * 10 + m + (ta ? 1 : 0));
        const ember::Tensor x = ta ? ember::randn({k, m}).t() : ember::randn({m, k});
        const ember::Tensor w = ember::randn({cs.n, k + 5}).narrow(1, 0, k);
        const ember::Tensor c = ember::randn({m, cs.n});
        const double alpha = 1.5, beta = 0.5;
        const ember::Tensor out = ember::addmm(c, x, w.t(), beta, alpha);
        const ember::Tensor xd = x.to(ember::kDouble), wd = w.to(ember::kDouble),
                            cd = c.to(ember::kDouble);
        const ember::Tensor ref = cd * beta + xd.mm(wd.t()) * alpha;
        const ember::Tensor mag = cd.abs() * beta + xd.abs().mm(wd.abs().t()) * alpha;
        const ember::Tensor err = (out.to(ember::kDouble) - ref).abs();
        const ember::Tensor bad =
            err.gt(mag * (double(k + 2) * std::numeric_limits<float>::epsilon()));
        EXPECT_EQ(bad.sum().item<int64_t>(), 0)
            << "threads=" << cs.threads << " m=" << m << " n=" << cs.n << " ta=" << ta;
      }
  }
  // One thread, blocks under 128 or over 1024 columns, or B not transposed keep oneDNN's product.
  EXPECT_FALSE(ember::cpu::sgemm_splits_columns(true, 2048, 1));
  EXPECT_FALSE(ember::cpu::sgemm_splits_columns(true, 255, 2));
  EXPECT_FALSE(ember::cpu::sgemm_splits_columns(true, 2049, 2));
  EXPECT_FALSE(ember::cpu::sgemm_splits_columns(false, 2048, 2));
}

// OpenBLAS runs on its caller's thread only; a product large enough to share runs as one
// OpenBLAS call per thread of the team on its own block of C's rows (m >= n) or columns. float64
// always goes to OpenBLAS (outside the Prescott pass), so these check every block of both splits
// against a plain float64 loop: ragged last blocks, A and B plain and transposed, leading
// dimensions wider than the matrices, alpha and beta.
TEST(GemmProvider, TeamSplitOpenblasProductsMatchReference) {
  if (ember::cpu::openblas_core_is_fallback())
    GTEST_SKIP() << "OpenBLAS runs a fallback core: float64 goes to Eigen, float32 to oneDNN";
  GemmProviderThreadsGuard guard;
  // The team is Ember's thread count within OpenMP's limit (tools/test.sh runs these again under
  // OMP_THREAD_LIMIT=1, where nothing splits and the products must still be right).
  const char* limit_env = std::getenv("OMP_THREAD_LIMIT");
  const int limit = limit_env ? std::atoi(limit_env) : 1 << 20;
  struct Case {
    int threads;
    int64_t m, n, k;
  };
  for (const Case cs : {Case{2, 130, 70, 64}, Case{3, 40, 200, 120}, Case{4, 50, 300, 180}}) {
    if (limit >= cs.threads) {
      ASSERT_TRUE(ember::cpu::openblas_gemm_splits(cs.m, cs.n, cs.k, cs.threads))
          << "threads=" << cs.threads << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k;
    }
    ember::set_num_threads(cs.threads);
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        ember::manual_seed(cs.m * 4 + (ta ? 2 : 0) + (tb ? 1 : 0));
        const auto opts = ember::TensorOptions().dtype(ember::kDouble);
        // Operands read in place with a leading dimension wider than their rows.
        const ember::Tensor x = ta ? ember::randn({cs.k, cs.m + 3}, opts).narrow(1, 0, cs.m).t()
                                   : ember::randn({cs.m, cs.k + 3}, opts).narrow(1, 0, cs.k);
        const ember::Tensor w = tb ? ember::randn({cs.n, cs.k + 5}, opts).narrow(1, 0, cs.k).t()
                                   : ember::randn({cs.k, cs.n + 5}, opts).narrow(1, 0, cs.n);
        const ember::Tensor c = ember::randn({cs.m, cs.n}, opts);
        const double alpha = 1.5, beta = -0.5;
        const ember::Tensor out = ember::addmm(c, x, w, beta, alpha).contiguous();
        const ember::Tensor xs = x.contiguous(), ws = w.contiguous();
        const double* xp = xs.data_ptr<double>();
        const double* wp = ws.data_ptr<double>();
        const double* cp = c.data_ptr<double>();
        const double* op = out.data_ptr<double>();
        int64_t bad = 0;
        for (int64_t i = 0; i < cs.m; ++i)
          for (int64_t j = 0; j < cs.n; ++j) {
            double acc = 0, mag = 0;
            for (int64_t q = 0; q < cs.k; ++q) {
              const double t = xp[i * cs.k + q] * wp[q * cs.n + j];
              acc += t;
              mag += std::abs(t);
            }
            const double expected = alpha * acc + beta * cp[i * cs.n + j];
            const double tol = double(cs.k + 2) * std::numeric_limits<double>::epsilon() *
                               (alpha * mag + std::abs(beta * cp[i * cs.n + j]));
            if (!(std::abs(op[i * cs.n + j] - expected) <= tol)) ++bad;
          }
        EXPECT_EQ(bad, 0) << "threads=" << cs.threads << " m=" << cs.m << " n=" << cs.n
                          << " ta=" << ta << " tb=" << tb;
      }
  }
  // float32 reaches OpenBLAS on AVX2 CPUs above 320³ on several threads: 384³ on 2, checked
  // against the float64 product (itself checked above) within (k + 2) eps_f32 of its terms.
  ember::set_num_threads(2);
  ember::manual_seed(7);
  const int64_t big = 384;
  const ember::Tensor a = ember::randn({big, big}), b = ember::randn({big, big}).t();
  const ember::Tensor ad = a.to(ember::kDouble), bd = b.to(ember::kDouble);
  const ember::Tensor err = (a.mm(b).to(ember::kDouble) - ad.mm(bd)).abs();
  const ember::Tensor mag = ad.abs().mm(bd.abs());
  EXPECT_EQ(
      err.gt(mag * (double(big + 2) * std::numeric_limits<float>::epsilon())).sum().item<int64_t>(),
      0);
  // One thread, fewer than 16 rows or columns per thread, or under 256k multiply-adds per thread:
  // one OpenBLAS call.
  EXPECT_FALSE(ember::cpu::openblas_gemm_splits(512, 512, 512, 1));
  EXPECT_FALSE(ember::cpu::openblas_gemm_splits(31, 31, 100000, 2));
  EXPECT_FALSE(ember::cpu::openblas_gemm_splits(64, 64, 127, 2));
  EXPECT_TRUE(ember::cpu::openblas_gemm_splits(64, 64, 128, 2));
}

}  // namespace gemm_provider_test
