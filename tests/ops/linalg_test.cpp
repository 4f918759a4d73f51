// Matrix products and ember::linalg: forward results against PyTorch's golden data
// (tests/golden/linalg.golden), then what golden data cannot show: every operand layout the GEMM
// path accepts (transposed, sliced, expanded, aliased out) against a float64 reference, both BLAS
// backends and thread counts, zero sizes, batch broadcasting, integer and 16-bit dtypes, einsum
// parsing, and error text. Decomposition identities: linalg_decomp_test.cpp; the GEMM provider
// around OpenBLAS's fallback cores: gemm_provider_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "ember/ember.h"
#include "ember/ops/linalg_householder.h"
#include "kernels/cpu/gemm_cpu.h"
#include "tests/ops/linalg_test_util.h"
#include "tests/support/golden.h"
#include "tests/support/threads.h"

using namespace ember;
using namespace linalg_test;

namespace {

// ---------------------------------------------------------------------------------------------
// Golden data: one runner per op, calling Ember the way the case's `call` line says (argument
// conventions: tests/golden/generate.py, gen_linalg).

using Outs = GoldenOuts;
using Runner = GoldenRunner;

Outs two(const std::tuple<Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }
Scalar sarg(const GoldenCase& c, size_t i, Scalar dflt) {
  return i < c.scalar_args.size() ? c.scalar_args[i] : dflt;
}
IntArrayRef dims_or(const GoldenCase& c, IntArrayRef dflt) {
  return c.int_lists.empty() ? dflt : IntArrayRef(c.int_lists[0]);
}

const std::map<std::string, Runner>& runners() {
  static const std::vector<int64_t> kLastTwo = {-2, -1};
  static const std::map<std::string, Runner> table = {
      {"mm", [](const GoldenCase& c) -> Outs { return {mm(c.arg(0), c.arg(1))}; }},
      {"bmm", [](const GoldenCase& c) -> Outs { return {bmm(c.arg(0), c.arg(1))}; }},
      {"matmul", [](const GoldenCase& c) -> Outs { return {matmul(c.arg(0), c.arg(1))}; }},
      {"dot", [](const GoldenCase& c) -> Outs { return {dot(c.arg(0), c.arg(1))}; }},
      {"mv", [](const GoldenCase& c) -> Outs { return {mv(c.arg(0), c.arg(1))}; }},
      {"outer", [](const GoldenCase& c) -> Outs { return {outer(c.arg(0), c.arg(1))}; }},
      {"addmm",
       [](const GoldenCase& c) -> Outs {
         return {addmm(c.arg(0), c.arg(1), c.arg(2), sarg(c, 0, 1), sarg(c, 1, 1))};
       }},
      {"baddbmm",
       [](const GoldenCase& c) -> Outs {
         return {baddbmm(c.arg(0), c.arg(1), c.arg(2), sarg(c, 0, 1), sarg(c, 1, 1))};
       }},
      {"einsum",
       [](const GoldenCase& c) -> Outs {
         std::vector<Tensor> ops;
         for (size_t i = 0; i < c.args.size(); ++i) ops.push_back(c.arg(i));
         return {einsum(c.strs.at(0), ops)};
       }},
      {"qr",
       [](const GoldenCase& c) -> Outs {  // reduced outputs: Q @ R and |R|
         auto [Q, R] = linalg::qr(c.arg(0));
         return {matmul(Q, R), R.abs()};
       }},
      {"inv", [](const GoldenCase& c) -> Outs { return {linalg::inv(c.arg(0))}; }},
      {"solve", [](const GoldenCase& c) -> Outs { return {linalg::solve(c.arg(0), c.arg(1))}; }},
      {"cholesky",
       [](const GoldenCase& c) -> Outs {
         return {linalg::cholesky(c.arg(0), c.has_flag("upper"))};
       }},
      {"det", [](const GoldenCase& c) -> Outs { return {linalg::det(c.arg(0))}; }},
      {"slogdet", [](const GoldenCase& c) -> Outs { return two(linalg::slogdet(c.arg(0))); }},
      {"matrix_norm",
       [](const GoldenCase& c) -> Outs {
         const bool keep = c.has_flag("keepdim");
         if (!c.strs.empty())
           return {linalg::matrix_norm(c.arg(0), c.strs[0], dims_or(c, kLastTwo), keep)};
         return {linalg::matrix_norm(c.arg(0), c.scalars.at(0), dims_or(c, kLastTwo), keep)};
       }},
      {"vector_norm",
       [](const GoldenCase& c) -> Outs {
         return {
             linalg::vector_norm(c.arg(0), c.scalars.at(0), dims_or(c, {}), c.has_flag("keepdim"))};
       }},
      {"matrix_exp", [](const GoldenCase& c) -> Outs { return {linalg::matrix_exp(c.arg(0))}; }},
      {"eigh",
       [](const GoldenCase& c) -> Outs {  // reduced outputs: the eigenvalues
         return {std::get<0>(linalg::eigh(c.arg(0)))};
       }},
      {"eigvalsh", [](const GoldenCase& c) -> Outs { return {linalg::eigvalsh(c.arg(0))}; }},
      {"svd",
       [](const GoldenCase& c) -> Outs {  // reduced outputs: S
         return {std::get<1>(linalg::svd(c.arg(0), false))};
       }},
      {"svdvals", [](const GoldenCase& c) -> Outs { return {linalg::svdvals(c.arg(0))}; }},
      // The raw factors: both sides call the same LAPACK drivers, so the signs agree too.
      {"qr_factors",
       [](const GoldenCase& c) -> Outs { return two(linalg::qr(c.arg(0), c.strs.at(0))); }},
      {"svd_factors",
       [](const GoldenCase& c) -> Outs {
         auto [U, S, Vh] = linalg::svd(c.arg(0), c.has_flag("full"));
         return {U, S, Vh};
       }},
      {"geqrf", [](const GoldenCase& c) -> Outs { return two(geqrf(c.arg(0))); }},
      {"householder_product",
       [](const GoldenCase& c) -> Outs {
         if (c.args.size() == 1) {  // householder_product(*geqrf(a0))
           auto [a, tau] = geqrf(c.arg(0));
           return {linalg::householder_product(a, tau)};
         }
         return {linalg::householder_product(c.arg(0), c.arg(1))};
       }},
      {"eigh_factors",
       [](const GoldenCase& c) -> Outs { return two(linalg::eigh(c.arg(0), c.strs.at(0))); }},
  };
  return table;
}

const std::vector<GoldenCase>& golden() {
  static const std::vector<GoldenCase> cases = load_golden("linalg");
  return cases;
}

std::vector<std::string> runner_names() {
  std::vector<std::string> names;
  for (const auto& kv : runners()) names.push_back(kv.first);
  return names;
}

class LinalgGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(LinalgGolden, MatchesPyTorch) {
  // With 1 and 2 threads: the split-over-threads paths must not change results.
  ember_test::with_thread_counts(
      [&] { expect_runner_matches(golden(), GetParam(), runners().at(GetParam())); });
}

INSTANTIATE_TEST_SUITE_P(Linalg, LinalgGolden, ::testing::ValuesIn(runner_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(LinalgGoldenCoverage, EveryGoldenOpHasARunner) {
  expect_every_op_has_runner(golden(), runners(), 20);
}

// ---------------------------------------------------------------------------------------------
// Helpers for the behaviour tests.

// float64 reference of a (batch of) 2-D product, computed with plain loops.
Tensor ref_mm(const Tensor& a, const Tensor& b) {
  Tensor x = a.to(kDouble).contiguous(), y = b.to(kDouble).contiguous();
  const int64_t m = x.size(0), k = x.size(1), n = y.size(1);
  Tensor out = zeros({m, n}, TensorOptions().dtype(kDouble));
  const double* px = x.data_ptr<double>();
  const double* py = y.data_ptr<double>();
  double* po = out.data_ptr<double>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t q = 0; q < k; ++q)
      for (int64_t j = 0; j < n; ++j) po[i * n + j] += px[i * k + q] * py[q * n + j];
  return out;
}

// A float32 product is right when its error is a few ulp of the sum of |a_iq·b_qj| (k terms).
void expect_product_near(const Tensor& actual, const Tensor& expected, int64_t k,
                         const std::string& what) {
  const double eps = actual.dtype() == kDouble ? 1e-15 : actual.dtype() == kFloat ? 1e-6 : 1e-2;
  expect_close(actual, expected.to(actual.dtype()), 4 * eps, 4 * eps * std::sqrt(double(k + 1)) * 4,
               what);
}

using ember_test::with_thread_counts;

// ---------------------------------------------------------------------------------------------
// mm: operand layouts, sizes on both sides of the OpenBLAS/oneDNN switch, dtypes.

TEST(LinalgMm, EveryTransposeCombinationMatchesReferenceWithoutCopies) {
  // 48³ and 40x300x350 (4.2e6) go to oneDNN, 330³ (3.6e7) to OpenBLAS at any thread count.
  for (auto [m, k, n] :
       {std::tuple<int64_t, int64_t, int64_t>{48, 48, 48}, {40, 300, 350}, {330, 330, 330}}) {
    for (ScalarType dt : {kFloat, kDouble}) {
      Tensor a = sample({m, k}, dt, 1), b = sample({k, n}, dt, 2);
      // a and b stored transposed: column-major views with the same values, so one reference
      // serves every layout.
      Tensor at = a.t().contiguous().t(), bt = b.t().contiguous().t();
      ASSERT_FALSE(at.is_contiguous());
      const Tensor expected = ref_mm(a, b);
      with_thread_counts([&, m = m, k = k, n = n] {
        for (auto [x, y] : {std::pair{a, b}, {at, b}, {a, bt}, {at, bt}}) {
          const std::string what = "mm " + std::to_string(m) + "x" + std::to_string(k) + "x" +
                                   std::to_string(n) + " " + std::string(to_string(dt)) +
                                   (x.is_contiguous() ? "" : " A^T") +
                                   (y.is_contiguous() ? "" : " B^T");
          expect_product_near(mm(x, y), expected, k, what);
        }
      });
    }
  }
}

TEST(LinalgMm, SlicedAndExpandedOperandsArePackedCorrectly) {
  Tensor big = sample({12, 20});
  Tensor a = big.slice(1, 0, 20, 2);            // 12x10, column stride 2: not BLAS-readable
  Tensor b = sample({10, 1}).expand({10, 7});   // stride 0 columns
  Tensor c = sample({7, 3}).slice(0, 1, 7, 2);  // 3x3 row stride 6
  expect_product_near(mm(a, b), ref_mm(a, b), 10, "sliced x expanded");
  expect_product_near(mm(b.t(), a.t()), ref_mm(b.t(), a.t()), 12, "expanded^T x sliced^T");
  expect_product_near(mm(c, c), ref_mm(c, c), 3, "row-strided");
}

TEST(LinalgMm, OutIntoTransposedAndAliasedTensors) {
  Tensor a = sample({5, 4}), b = sample({4, 6});
  Tensor out_t = empty({6, 5}).t();  // 5x6 written column-major
  mm_out(out_t, a, b);
  expect_product_near(out_t, ref_mm(a, b), 4, "mm_out into a transposed out");
  Tensor out = empty({0});
  mm_out(out, a, b);
  EXPECT_EQ(shape_of(out), (std::vector<int64_t>{5, 6}));
  expect_product_near(out, ref_mm(a, b), 4, "mm_out resizing out");
  Tensor sq = sample({4, 4});
  Tensor expected = ref_mm(sq, sq);
  mm_out(sq, sq, sq);  // out aliases both inputs
  expect_product_near(sq, expected, 4, "mm_out aliasing its inputs");
}

TEST(LinalgMm, ZeroSizes) {
  for (ScalarType dt : {kFloat, kDouble, kLong, kBFloat16}) {
    Tensor r = mm(empty({3, 0}, dtype(dt)), empty({0, 2}, dtype(dt)));
    EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3, 2}));
    EXPECT_TRUE(r.equal(zeros({3, 2}, dtype(dt)))) << to_string(dt);
    EXPECT_EQ(shape_of(mm(empty({0, 4}, dtype(dt)), empty({4, 0}, dtype(dt)))),
              (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(shape_of(mm(empty({0, 3}, dtype(dt)), ones({3, 2}, dtype(dt)))),
              (std::vector<int64_t>{0, 2}));
  }
  Tensor bias = full({3, 2}, 2.0);
  EXPECT_TRUE(addmm(bias, empty({3, 0}), empty({0, 2}), 0.5).equal(full({3, 2}, 1.0)));
  EXPECT_EQ(dot(empty({0}), empty({0})).item<float>(), 0.0f);
  EXPECT_EQ(shape_of(bmm(empty({0, 2, 3}), empty({0, 3, 4}))), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(shape_of(matmul(empty({2, 0, 3}), empty({3, 4}))), (std::vector<int64_t>{2, 0, 4}));
}

TEST(LinalgMm, IntegerProductsAreExactAndWrapAround) {
  manual_seed(3);
  Tensor a = randint(-50, 50, {7, 9}), b = randint(-50, 50, {9, 5});
  Tensor expected = ref_mm(a, b).to(kLong);
  EXPECT_TRUE(mm(a, b).equal(expected));
  EXPECT_TRUE(mm(a.to(kInt), b.to(kInt)).equal(expected.to(kInt)));
  EXPECT_TRUE(mm(a.t().contiguous().t(), b).equal(expected));
  // int8: 100·100 + 100·100 = 20000 wraps to 20000 - 78·256 = 32 (PyTorch's result).
  Tensor x = full({1, 2}, 100, dtype(kChar)), y = full({2, 1}, 100, dtype(kChar));
  EXPECT_EQ(mm(x, y).item<int64_t>(), 32);
  // int64 wraps too (no undefined behaviour): 2^62 · 2 + 2^62 · 2 = 2^64 = 0.
  Tensor big = full({1, 2}, int64_t(1) << 62, dtype(kLong)), two = full({2, 1}, 2, dtype(kLong));
  EXPECT_EQ(mm(big, two).item<int64_t>(), 0);
  EXPECT_TRUE(addmm(ones({7, 5}, dtype(kLong)), a, b, 2, 3).equal(expected * 3 + 2));
}

TEST(LinalgMm, ReducedPrecisionMatchesFloatReference) {
  for (ScalarType dt : {kBFloat16, kHalf}) {
    Tensor a = sample({20, 33}).to(dt), b = sample({33, 17}).to(dt);
    Tensor expected = ref_mm(a, b);  // from the rounded inputs
    Tensor r = mm(a, b);
    EXPECT_EQ(r.dtype(), dt);
    // One rounding of a float-accumulated result: half an ulp of the 16-bit type.
    const double rtol = dt == kBFloat16 ? 8e-3 : 1e-3;
    expect_close(r.to(kDouble), expected, rtol, rtol * 8, std::string("mm ") + to_string(dt));
    expect_close(mm(a.t().contiguous().t(), b).to(kDouble), expected, rtol, rtol * 8, "transposed");
    Tensor bias = sample({20, 17}).to(dt);
    Tensor expected2 = expected * 1.5 + bias.to(kDouble) * 0.5;
    expect_close(addmm(bias, a, b, 0.5, 1.5).to(kDouble), expected2, rtol * 2, rtol * 16, "addmm");
    Tensor ba = sample({3, 4, 5}).to(dt), bb = sample({3, 5, 2}).to(dt);
    for (int64_t i = 0; i < 3; ++i)
      expect_close(bmm(ba, bb)[i].to(kDouble), ref_mm(ba[i], bb[i]), rtol, rtol * 8, "bmm");
  }
}

TEST(LinalgMm, AddmmBetaZeroIgnoresNanAndBroadcastsBias) {
  Tensor a = sample({3, 4}), b = sample({4, 5});
  Tensor nan_bias = full({3, 5}, std::numeric_limits<double>::quiet_NaN());
  expect_product_near(addmm(nan_bias, a, b, 0, 1), ref_mm(a, b), 4, "beta=0");
  Tensor row = sample({5});
  Tensor expected = ref_mm(a, b) * 2 + row.to(kDouble) * 3;
  expect_close(addmm(row, a, b, 3, 2), expected.to(kFloat), 1e-5, 1e-5, "row bias");
  Tensor col = sample({3, 1});
  EXPECT_TRUE(col.addmm(a, b, 3, 2).equal(addmm(col, a, b, 3, 2))) << "method";
  expect_close(addmm(col, a, b), (ref_mm(a, b) + col.to(kDouble)).to(kFloat), 1e-5, 1e-5,
               "column bias");
}

// The oneDNN matmul primitive (the bf16/f16 path on AVX-512 CPUs) runs float32 everywhere: drive
// its cache, strides, broadcast batch and alpha/beta attributes through float32 here.
TEST(LinalgMmKernels, OnednnMatmulPrimitiveMatchesReference) {
  Tensor a = sample({2, 6, 5}), b = sample({2, 5, 4}), bias = sample({2, 6, 4});
  for (int rep = 0; rep < 2; ++rep) {  // the second round hits the primitive cache
    Tensor c = bias.clone();
    GemmParams p;
    p.batch = 2;
    p.m = 6;
    p.n = 4;
    p.k = 5;
    Tensor at = a.transpose(1, 2).contiguous().transpose(1, 2);  // column-major A
    p.a = at.data_ptr();
    p.a_bs = at.stride(0);
    p.a_rs = at.stride(1);
    p.a_cs = at.stride(2);
    p.b = b.data_ptr();
    p.b_bs = 0;  // broadcast: every batch uses b[0]
    p.b_rs = b.stride(1);
    p.b_cs = b.stride(2);
    p.c = c.data_ptr();
    p.c_bs = c.stride(0);
    p.c_rs = c.stride(1);
    p.c_cs = c.stride(2);
    p.alpha = 2.0;
    p.beta = 0.5;
    ASSERT_TRUE(cpu::onednn_matmul(kFloat, p));
    for (int64_t i = 0; i < 2; ++i) {
      Tensor expected = ref_mm(a[i], b[0]) * 2 + bias[i].to(kDouble) * 0.5;
      expect_close(c[i], expected.to(kFloat), 1e-5, 1e-5,
                   "onednn matmul batch " + std::to_string(i));
    }
  }
  GemmParams p;  // ints are not for oneDNN: refused, nothing written
  EXPECT_FALSE(cpu::onednn_matmul(kLong, p));
}

// ---------------------------------------------------------------------------------------------
// bmm, matmul and friends.

TEST(LinalgBmm, TransposedAndBroadcastBatchesMatchPerMatrixProducts) {
  with_thread_counts([] {
    for (int64_t n : {4, 100}) {  // small: one product per thread; larger: each product threaded
      Tensor a = sample({6, n, n + 1}), b = sample({6, n + 1, 3});
      Tensor out = bmm(a, b);
      Tensor out_t = bmm(a.transpose(1, 2).contiguous().transpose(1, 2), b);
      for (int64_t i = 0; i < 6; ++i) {
        expect_product_near(out[i], ref_mm(a[i], b[i]), n + 1, "bmm");
        expect_product_near(out_t[i], ref_mm(a[i], b[i]), n + 1, "bmm A^T");
      }
      Tensor perm = sample({n, 6, n + 1}).permute({1, 0, 2});  // batch stride smaller than rows'
      Tensor outp = bmm(perm, b);
      for (int64_t i = 0; i < 6; ++i)
        expect_product_near(outp[i], ref_mm(perm[i], b[i]), n + 1, "bmm permuted");
    }
  });
  Tensor bias = sample({1, 3, 2});
  Tensor a = sample({4, 3, 5}), b = sample({4, 5, 2});
  Tensor r = baddbmm(bias, a, b, 0.5, 2);
  for (int64_t i = 0; i < 4; ++i)
    expect_close(r[i], (ref_mm(a[i], b[i]) * 2 + bias[0].to(kDouble) * 0.5).to(kFloat), 1e-5, 1e-5,
                 "baddbmm");
  expect_close(bias.baddbmm(a, b), baddbmm(bias, a, b), 0, 0, "method");
}

TEST(MatmulTest, EveryRankCombinationMatchesItsDefinition) {
  Tensor v3 = sample({3}), v4 = sample({4}, kFloat, 2), m34 = sample({3, 4}, kFloat, 3);
  Tensor m43 = sample({4, 3}, kFloat, 4);
  expect_close(matmul(v3, v3), (v3 * v3).sum(), 1e-6, 1e-6, "1-D . 1-D");
  EXPECT_EQ(matmul(v3, v3).dim(), 0);
  expect_product_near(matmul(m34, v4), ref_mm(m34, v4.unsqueeze(1)).squeeze(1), 4, "2-D . 1-D");
  expect_product_near(matmul(v3, m34), ref_mm(v3.unsqueeze(0), m34).squeeze(0), 3, "1-D . 2-D");
  Tensor b234 = sample({2, 3, 4}, kFloat, 5);
  Tensor r = matmul(b234, v4);
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 3}));
  for (int64_t i = 0; i < 2; ++i)
    expect_product_near(r[i], ref_mm(b234[i], v4.unsqueeze(1)).squeeze(1), 4, "3-D . 1-D");
  r = matmul(v3, b234);
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 4}));
  for (int64_t i = 0; i < 2; ++i)
    expect_product_near(r[i], ref_mm(v3.unsqueeze(0), b234[i]).squeeze(0), 3, "1-D . 3-D");
  r = matmul(m43, b234);  // 2-D . 3-D: the matrix broadcast over the batch
  for (int64_t i = 0; i < 2; ++i) expect_product_near(r[i], ref_mm(m43, b234[i]), 3, "2-D . 3-D");
  EXPECT_TRUE(m34.matmul(m43).equal(mm(m34, m43)));
  EXPECT_TRUE(m34.mv(v4).equal(mv(m34, v4)));
  EXPECT_TRUE(v3.dot(v3).equal(dot(v3, v3)));
  EXPECT_TRUE(v3.outer(v4).equal(outer(v3, v4)));
}

TEST(MatmulTest, BroadcastsBatchDimsAndFoldsIntoOneProduct) {
  Tensor a = sample({2, 1, 3, 4}), b = sample({5, 4, 2}, kFloat, 2);
  Tensor r = matmul(a, b);
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 5, 3, 2}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; ++j)
      expect_product_near(r[i][j], ref_mm(a[i][0], b[j]), 4, "broadcast");
  // A contiguous 3-D times a 2-D folds into one (24x4)·(4x6) product; a permuted one cannot fold
  // and runs batched; both must agree with the per-matrix definition.
  Tensor w = sample({4, 6}, kFloat, 3);
  Tensor x = sample({2, 12, 4}, kFloat, 4), xp = sample({12, 2, 4}, kFloat, 4).permute({1, 0, 2});
  for (const Tensor& in : {x, xp}) {
    Tensor y = matmul(in, w);
    for (int64_t i = 0; i < 2; ++i) expect_product_near(y[i], ref_mm(in[i], w), 4, "3-D . 2-D");
  }
  // Expanded batch dims (stride 0) on the left, a transposed batch on the right.
  Tensor e = sample({1, 3, 4}).expand({3, 3, 4});
  Tensor bt = sample({3, 2, 4}, kFloat, 5).transpose(1, 2);
  Tensor y = matmul(e, bt);
  for (int64_t i = 0; i < 3; ++i) expect_product_near(y[i], ref_mm(e[i], bt[i]), 4, "expanded");
  // Two batch dims that cannot merge (strides of a permuted tensor): the outer one is looped.
  Tensor p = sample({3, 4, 2, 5}).permute({1, 2, 0, 3});  // 4x2x3x5
  Tensor q = sample({2, 5, 6}, kFloat, 6);
  Tensor z = matmul(p, q);
  EXPECT_EQ(shape_of(z), (std::vector<int64_t>{4, 2, 3, 6}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      expect_product_near(z[i][j], ref_mm(p[i][j], q[j]), 5, "unmergeable");
}

TEST(MatmulTest, OuterPromotesMixedDtypesAndAcceptsBool) {
  Tensor a = arange(3), b = tensor({0.5, 1.5});
  Tensor r = outer(a, b);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_TRUE(r.equal(tensor({{0.0, 0.0}, {0.5, 1.5}, {1.0, 3.0}}).to(kFloat)));
  Tensor t = tensor({true, false});
  EXPECT_TRUE(outer(t, t).equal(tensor({{true, false}, {false, false}})));
}

TEST(MatmulTest, ErrorsNameTheOpShapesAndDtypes) {
  expect_error(
      [] {
        mm(zeros({2, 3}), zeros({4, 5}));
      },
      {"mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"});
  expect_error<TypeError>(
      [] {
        mm(zeros({2, 3}), zeros({3, 2}, dtype(kDouble)));
      },
      {"mm", "float32", "float64"});
  expect_error([] { mm(zeros({2, 3, 4}), zeros({4, 5})); }, {"mm", "mat1", "2-D", "3-D"});
  expect_error([] { mm(zeros({2, 3}), zeros({3})); }, {"mm", "mat2", "2-D", "1-D"});
  expect_error([] { bmm(zeros({2, 3, 4}), zeros({3, 4, 5})); }, {"bmm", "batch size", "2", "3"});
  expect_error(
      [] {
        bmm(zeros({2, 3, 4}), zeros({2, 5, 5}));
      },
      {"bmm: batch1 and batch2 shapes cannot be multiplied (2x3x4 and 2x5x5)"});
  expect_error([] { bmm(zeros({3, 4}), zeros({4, 5})); }, {"bmm", "3-D"});
  expect_error([] { matmul(zeros({}), zeros({3})); }, {"matmul", "at least 1-D", "0-D"});
  expect_error(
      [] {
        matmul(zeros({2, 3, 4}), zeros({5, 6}));
      },
      {"matmul: shapes cannot be multiplied (2x3x4 and 5x6)"});
  expect_error([] { matmul(zeros({2, 3, 4}), zeros({3, 4, 5})); }, {"matmul", "broadcast"});
  expect_error<TypeError>(
      [] {
        matmul(zeros({2, 3, 4}), zeros({4, 5}, dtype(kDouble)));
      },
      {"matmul", "float32", "float64"});
  expect_error([] { mv(zeros({2, 3}), zeros({4})); }, {"mv: size mismatch", "2x3", "4"});
  expect_error([] { dot(zeros({3}), zeros({4})); }, {"dot", "3", "4"});
  expect_error<TypeError>(
      [] {
        mm(zeros({2, 2}, dtype(kBool)), zeros({2, 2}, dtype(kBool)));
      },
      {"mm", "bool"});
  expect_error([] { addmm(zeros({4}), zeros({2, 3}), zeros({3, 5})); }, {"addmm", "[4]", "[2, 5]"});
  expect_error<TypeError>(
      [] {
        addmm(zeros({2, 5}, dtype(kLong)), zeros({2, 3}, dtype(kLong)), zeros({3, 5}, dtype(kLong)),
              0.5);
      },
      {"addmm", "integral", "beta"});
  expect_error<TypeError>(
      [] {
        mm_out(empty({2, 2}, dtype(kDouble)), zeros({2, 2}), zeros({2, 2}));
      },
      {"mm_out", "float64", "float32"});
}

// ---------------------------------------------------------------------------------------------
// einsum

TEST(LinalgEinsum, ParsesImplicitExplicitDiagonalAndEllipsis) {
  Tensor a = sample({3, 4}), b = sample({4, 5}, kFloat, 2), sq = sample({3, 3}, kFloat, 3);
  expect_product_near(einsum("ij,jk", {a, b}), ref_mm(a, b), 4, "implicit ij,jk");
  expect_product_near(einsum(" i j , j k -> i k ", {a, b}), ref_mm(a, b), 4, "spaces");
  EXPECT_TRUE(einsum("ba", {a}).equal(a.t()));  // implicit output is sorted: 'ab'
  EXPECT_TRUE(einsum("ij->ji", {a}).equal(a.t()));
  EXPECT_TRUE(einsum("ii->i", {sq}).equal(sq.diagonal()));
  expect_close(einsum("ii", {sq}), sq.diagonal().sum(), 1e-6, 1e-6, "trace");
  expect_close(einsum("Ab,bA->", {a, a.t()}), (a * a).sum(), 1e-5, 1e-5, "upper-case labels");
  Tensor x = sample({2, 3, 4}, kFloat, 4);
  EXPECT_TRUE(einsum("...ij->...ji", {x}).equal(x.transpose(1, 2)));
  expect_close(einsum("...ij->ij", {x}), x.sum({0}), 1e-6, 1e-6, "ellipsis left out: summed");
  Tensor y = sample({2, 1, 4}, kFloat, 5), z = sample({3, 4}, kFloat, 6);
  Tensor r = einsum("...i,...i->...", {y, z});  // (2,1) and (3) broadcast to (2,3)
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 3}));
  expect_close(r, (y * z).sum({-1}), 1e-5, 1e-5, "ellipsis broadcast");
  // A size-1 dim broadcasting against the same label, summed and kept.
  Tensor one = sample({1}), three = sample({3}, kFloat, 7);
  expect_close(einsum("i,i->i", {one, three}), one * three, 1e-6, 1e-6, "broadcast kept");
  expect_close(einsum("i,i->", {one, three}), (one * three).sum(), 1e-6, 1e-6, "broadcast summed");
  // Three operands, with a label shared by all of them.
  Tensor p = sample({2, 3}), q = sample({2, 3, 4}, kFloat, 8), s = sample({2, 4}, kFloat, 9);
  Tensor t = einsum("bi,bij,bj->b", {p, q, s});
  for (int64_t i = 0; i < 2; ++i)
    expect_close(t[i], (p[i].unsqueeze(1) * q[i] * s[i].unsqueeze(0)).sum(), 1e-5, 1e-5,
                 "three operands");
  // Zero-size contraction.
  EXPECT_TRUE(einsum("ij,jk->ik", {empty({2, 0}), empty({0, 3})}).equal(zeros({2, 3})));
}

TEST(LinalgEinsum, ErrorsNameTheProblem) {
  Tensor a = zeros({3, 4});
  expect_error([&] { einsum("ij,jk->ik", {a}); }, {"einsum", "2 operands", "1 tensors"});
  expect_error([&] { einsum("ijk->i", {a}); }, {"einsum", "'ijk'", "3 dims", "2 dims"});
  expect_error([&] { einsum("ij->iz", {a}); }, {"einsum", "output subscript z does not appear"});
  expect_error([&] { einsum("ij->ii", {a}); }, {"einsum", "subscript i appears more than once"});
  expect_error([&] { einsum("i1->i", {zeros({3, 4})}); }, {"einsum", "invalid subscript '1'"});
  expect_error([&] { einsum("ij,jk", {a, zeros({5, 2})}); }, {"einsum", "subscript j", "5", "4"});
  expect_error([&] { einsum("ii->i", {a}); }, {"einsum", "repeated", "3", "4"});
  expect_error([&] { einsum("i..j->i", {a}); }, {"einsum", "ellipsis"});
  expect_error<TypeError>(
      [&] {
        einsum("ij,jk", {a, zeros({4, 2}, dtype(kDouble))});
      },
      {"einsum", "float32", "float64"});
}

}  // namespace
