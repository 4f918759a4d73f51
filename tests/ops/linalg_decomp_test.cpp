// ember::linalg decompositions and norms: identities at float64 (Q·R = A, U·diag(S)·Vh = A,
// A·inv(A) = I, L·Lᵀ = A, ...), the shapes of every mode, and the errors for singular, indefinite
// and malformed inputs. Their forward results against PyTorch are in linalg_test.cpp (golden data).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "kernels/cpu/lapack_workspace.h"
#include "src/dispatch/dispatch.h"
#include "tests/ops/linalg_test_util.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace linalg_test;

namespace {

Tensor eye_like(int64_t n) { return eye(n, TensorOptions().dtype(kDouble)); }
void expect_near(const Tensor& a, const Tensor& b, const std::string& what, double tol = 1e-10) {
  expect_close(a, b, tol, tol, what);
}

TEST(LinalgDecomp, QrReconstructsAndIsOrthonormalInEveryMode) {
  for (auto shape : {std::vector<int64_t>{5, 3}, {3, 5}, {2, 4, 4}}) {
    Tensor A = sample(shape, kDouble);
    const int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
    auto [Q, R] = linalg::qr(A);
    EXPECT_EQ(Q.size(-1), k);
    EXPECT_EQ(R.size(-2), k);
    expect_near(matmul(Q, R), A, "Q·R = A");
    Tensor QtQ = matmul(Q.mT(), Q);
    expect_near(QtQ, eye_like(k).expand(QtQ.sizes()), "QᵀQ = I");
    EXPECT_TRUE(R.equal(R.triu())) << "R is upper triangular";
    auto [Qc, Rc] = linalg::qr(A, "complete");
    EXPECT_EQ(Qc.size(-1), m);
    EXPECT_EQ(Rc.size(-2), m);
    expect_near(matmul(Qc, Rc), A, "complete Q·R = A");
    auto [Qr, Rr] = linalg::qr(A, "r");
    EXPECT_EQ(Qr.numel(), 0);
    expect_near(Rr.abs(), R.abs(), "mode r");
  }
  expect_error<ValueError>([] { linalg::qr(zeros({2, 2}), "thin"); }, {"linalg.qr", "thin"});
}

TEST(LinalgDecomp, SvdReconstructsWithSortedSingularValues) {
  for (auto shape : {std::vector<int64_t>{6, 4}, {4, 6}, {3, 5, 5}}) {
    Tensor A = sample(shape, kDouble);
    auto [U, S, Vh] = linalg::svd(A, false);
    Tensor US = U * S.unsqueeze(-2);
    expect_near(matmul(US, Vh), A, "U·diag(S)·Vh = A");
    Tensor sorted = std::get<0>(S.sort(-1, true));
    EXPECT_TRUE(S.equal(sorted)) << "descending";
    expect_near(linalg::svdvals(A), S, "svdvals = S");
    auto [Uf, Sf, Vhf] = linalg::svd(A, true);
    const int64_t m = A.size(-2), n = A.size(-1);
    EXPECT_EQ(Uf.size(-1), m);
    EXPECT_EQ(Vhf.size(-2), n);
    expect_near(matmul(Uf.mT(), Uf), eye_like(m).expand(Uf.sizes()), "U orthogonal");
    expect_near(matmul(Vhf, Vhf.mT()), eye_like(n).expand(Vhf.sizes()), "Vh orthogonal");
  }
}

TEST(LinalgDecomp, EighReadsOneTriangleAndDiagonalises) {
  Tensor M = sample({4, 4}, kDouble);
  Tensor A = M + M.t();
  auto [L, V] = linalg::eigh(A);
  expect_near(matmul(A, V), V * L.unsqueeze(0), "A·V = V·diag(L)");
  Tensor junk_upper = A.tril() + full({4, 4}, 9.0, dtype(kDouble)).triu(1);
  expect_near(linalg::eigvalsh(junk_upper), L, "L reads the lower triangle");
  Tensor junk_lower = A.triu() + full({4, 4}, 9.0, dtype(kDouble)).tril(-1);
  expect_near(linalg::eigvalsh(junk_lower, "U"), L, "U reads the upper triangle");
  expect_error<ValueError>([&] { linalg::eigh(A, "X"); },
                           {"linalg.eigh", "Expected UPLO argument to be 'L' or 'U', but got X"});
  // Either case, as PyTorch (which upper-cases the argument), gradient included.
  expect_near(linalg::eigvalsh(junk_lower, "u"), L, "u reads the upper triangle");
  Tensor Ag = junk_lower.clone().requires_grad_(true);
  auto [Lu, Vu] = linalg::eigh(Ag, "u");
  Lu.sum().backward();
  expect_near(Ag.grad().tril(-1), zeros({4, 4}, dtype(kDouble)), "no gradient below, UPLO u");
}

TEST(LinalgDecomp, InvSolveAndCholeskyIdentities) {
  Tensor A = sample({2, 4, 4}, kDouble) + eye_like(4) * 4;
  Tensor Ai = linalg::inv(A);
  expect_near(matmul(A, Ai), eye_like(4).expand({2, 4, 4}), "A·inv(A) = I");
  expect_near(linalg::inv(A.mT()), Ai.mT(), "inv of a transposed view");
  Tensor B = sample({4, 3}, kDouble);  // broadcast over A's batch
  Tensor X = linalg::solve(A, B);
  EXPECT_EQ(shape_of(X), (std::vector<int64_t>{2, 4, 3}));
  expect_near(matmul(A, X), B.expand({2, 4, 3}), "A·X = B");
  Tensor b = sample({2, 4}, kDouble);  // a batch of vectors
  Tensor x = linalg::solve(A, b);
  EXPECT_EQ(shape_of(x), (std::vector<int64_t>{2, 4}));
  expect_near(matmul(A, x.unsqueeze(-1)).squeeze(-1), b, "A·x = b");
  Tensor S = matmul(A, A.mT());
  Tensor Lc = linalg::cholesky(S);
  expect_near(matmul(Lc, Lc.mT()), S, "L·Lᵀ = A");
  EXPECT_TRUE(Lc.equal(Lc.tril()));
  Tensor Uc = linalg::cholesky(S, true);
  expect_near(Uc, Lc.mT(), "upper = Lᵀ");
  // Each reads its own triangle, as PyTorch: junk in the other one is never seen.
  Tensor junk_below = S.triu() + full({2, 4, 4}, 7.0, dtype(kDouble)).tril(-1);
  expect_near(linalg::cholesky(junk_below, true), Uc, "upper reads the upper triangle");
  Tensor junk_above = S.tril() + full({2, 4, 4}, 7.0, dtype(kDouble)).triu(1);
  expect_near(linalg::cholesky(junk_above), Lc, "lower reads the lower triangle");
}

TEST(LinalgDecomp, DeterminantsAndMatrixExp) {
  Tensor A = sample({3, 3, 3}, kDouble);
  Tensor d = linalg::det(A);
  auto [sign, logabs] = linalg::slogdet(A);
  expect_near(sign * logabs.exp(), d, "sign·exp(logabsdet) = det");
  Tensor L = linalg::eigvalsh(matmul(A, A.mT()));
  expect_near(d * d, L.prod(-1), "det² = Π eig(AAᵀ)", 1e-8);
  Tensor diag = tensor({{1.0, 0.0}, {0.0, -2.0}}, dtype(kDouble));
  expect_near(linalg::matrix_exp(diag),
              tensor({{std::exp(1.0), 0.0}, {0.0, std::exp(-2.0)}}, dtype(kDouble)), "exp(diag)");
  Tensor nil = tensor({{0.0, 1.0}, {0.0, 0.0}}, dtype(kDouble));  // nilpotent: exp = I + N
  expect_near(linalg::matrix_exp(nil), eye_like(2) + nil, "exp(nilpotent)");
  EXPECT_EQ(linalg::det(empty({0, 0}, dtype(kDouble))).item<double>(), 1.0);
}

TEST(LinalgDecomp, NonFiniteInputsGiveErrorsOrNaNsAsPyTorch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor A = tensor({{1.0, nan}, {0.5, 2.0}}, dtype(kDouble));
  expect_error([&] { linalg::svd(A); }, {"linalg.svd", "non-finite"});
  expect_error(
      [&] {
        linalg::svdvals(A.unsqueeze(0).repeat({2, 1, 1}));
      },
      {"linalg.svd", "(Batch element 0)", "non-finite"});  // PyTorch's op name for svdvals too
  // An inf is an Error too (newer PyTorch's answer), checked before gesdd, which can loop
  // forever on it (linalg_signatures_test.cpp has such a matrix).
  Tensor with_inf =
      tensor({{std::numeric_limits<double>::infinity(), 1.0}, {1.0, 1.0}}, dtype(kDouble));
  expect_error([&] { linalg::svdvals(with_inf); }, {"linalg.svd", "non-finite"});
  // eigh and cholesky read the lower triangle by default: the NaN above the diagonal is never seen.
  expect_near(linalg::eigvalsh(A), linalg::eigvalsh(A.tril() + A.tril(-1).mT()), "eigh skips U");
  EXPECT_TRUE(linalg::cholesky(A).isfinite().all().item<bool>());
  for (const Tensor& r : {linalg::inv(A), linalg::det(A), linalg::matrix_exp(A)})
    EXPECT_TRUE(r.isnan().all().item<bool>()) << r;
  Tensor inf = tensor({{1.0, std::numeric_limits<double>::infinity()}, {0.0, 1.0}}, dtype(kDouble));
  EXPECT_TRUE(linalg::matrix_exp(inf).isnan().all().item<bool>());
}

TEST(LinalgDecomp, NormsMatchTheirDefinitions) {
  Tensor A = sample({3, 4}, kDouble);
  expect_near(linalg::matrix_norm(A), (A * A).sum().sqrt(), "fro");
  expect_near(linalg::matrix_norm(A, 1.0), A.abs().sum({0}).max(), "1");
  expect_near(linalg::matrix_norm(A, -std::numeric_limits<double>::infinity()),
              A.abs().sum({1}).min(), "-inf");
  expect_near(linalg::matrix_norm(A, "nuc"), linalg::svdvals(A).sum(), "nuc");
  expect_near(linalg::matrix_norm(A, -2.0), linalg::svdvals(A).min(), "-2");
  Tensor x = sample({2, 5}, kDouble);
  expect_near(linalg::vector_norm(x, 3.0, {1}), x.abs().pow(3.0).sum({1}).pow(1.0 / 3), "ord 3");
  expect_near(linalg::vector_norm(x, 0.0), tensor(10.0).to(kDouble), "ord 0 counts nonzeros");
  Tensor h = x.to(kHalf);
  EXPECT_EQ(linalg::vector_norm(h).dtype(), kHalf);
  expect_error<TypeError>([] { linalg::vector_norm(arange(3)); }, {"linalg.vector_norm", "int64"});
  expect_error<ValueError>([&] { linalg::matrix_norm(A, 3.0); }, {"linalg.matrix_norm", "3"});
  expect_error<ValueError>([&] { linalg::matrix_norm(A, "max"); }, {"linalg.matrix_norm", "max"});
  expect_error([&] { linalg::matrix_norm(A, "fro", {0, 0}); }, {"linalg.matrix_norm", "multiple"});
}

TEST(LinalgDecomp, SingularAndIndefiniteInputsRaiseErrorsNamingTheOp) {
  Tensor sing = tensor({{1.0, 2.0}, {2.0, 4.0}}, dtype(kDouble));
  expect_error([&] { linalg::inv(sing); },
               {"linalg.inv: The diagonal element 2 is zero, the inversion could not be completed "
                "because the input matrix is singular."});
  Tensor batch = stack({eye_like(2), sing});
  expect_error([&] { linalg::inv(batch); },
               {"linalg.inv: (Batch element 1): The diagonal element 2"});
  expect_error([&] { linalg::solve(sing, ones({2}, dtype(kDouble))); },
               {"linalg.solve", "singular"});
  // PyTorch factors Aᵀ (the row-major data read as column-major): the zero pivot it names is
  // Aᵀ's, element 1 here where A's own LU would stop at 2.
  expect_error(
      [] {
        linalg::inv(tensor({{0.0, 0.0}, {1.0, 0.0}}, dtype(kDouble)));
      },
      {"linalg.inv: The diagonal element 1 is zero"});
  // Batch elements are named only when A is batched.
  expect_error(
      [&] {
        linalg::solve(sing, ones({3, 2, 1}, dtype(kDouble)));
      },
      {"linalg.solve: The solver failed because the input matrix is singular."});
  expect_error(
      [&] {
        linalg::solve(batch, ones({2, 1}, dtype(kDouble)));
      },
      {"linalg.solve: (Batch element 1): The solver failed"});
  Tensor indef = tensor({{1.0, 2.0}, {2.0, 1.0}}, dtype(kDouble));
  expect_error([&] { linalg::cholesky(indef); },
               {"linalg.cholesky", "not positive-definite", "leading minor of order 2"});
  expect_error(
      [] {
        linalg::inv(zeros({2, 3}, dtype(kDouble)));
      },
      {"linalg.inv", "square", "2 by 3"});
  expect_error<TypeError>([] { linalg::inv(eye(2, dtype(kLong))); }, {"linalg.inv", "int64"});
  expect_error([] { linalg::det(zeros({3}, dtype(kDouble))); }, {"linalg.det", "at least 2"});
  expect_error(
      [] {
        linalg::solve(eye(3, dtype(kDouble)), zeros({4, 1}, dtype(kDouble)));
      },
      {"linalg.solve", "Incompatible shapes"});
  auto [s, l] = linalg::slogdet(sing);
  EXPECT_EQ(s.item<double>(), 0.0);
  EXPECT_EQ(l.item<double>(), -std::numeric_limits<double>::infinity());
}

TEST(LinalgDecomp, LapackRoutinesAreKernelSlotsForFloatAndDouble) {
  // The ops reach LAPACK only through these slots (kernels/common/lapack_params.h).
  for (OpId op : {OpId::lu_factor, OpId::lu_solve, OpId::cholesky, OpId::geqrf, OpId::orgqr,
                  OpId::svd, OpId::eigh}) {
    EXPECT_TRUE(supports(op, kCPU, kFloat)) << op_name(op);
    EXPECT_TRUE(supports(op, kCPU, kDouble)) << op_name(op);
    EXPECT_FALSE(supports(op, kCPU, kHalf)) << op_name(op);
  }
}

TEST(LinalgDecomp, LapackWorkspacesNeverFallBelowTheMinimumNorOverflow) {
  // ssyevd returns its exact minimum as a float: 1 + 6n + 2n² = 50030001 at n = 5000 rounds down
  // to 50030000, which ssyevd then rejects. The size passed is at least the minimum.
  const float rounded = 50030001.0f;
  ASSERT_LT(static_cast<double>(rounded), 50030001.0);
  EXPECT_GE(lapack::workspace(rounded, 50030001).value(), 50030001);
  EXPECT_EQ(lapack::workspace(96.0, 8).value(), 96);
  EXPECT_EQ(lapack::workspace(0.0, 0).value(), 1);
  // Past INT_MAX LP64 LAPACK's own size arithmetic wraps (gesdd 'S' at n = 30000 needs
  // 4n² + 7n = 3.6e9 and its query says 1809000): no size, and the op throws instead.
  const int64_t n = 30000;
  EXPECT_FALSE(lapack::workspace(1809000.0, 4 * n * n + 7 * n).has_value());
  EXPECT_FALSE(lapack::workspace(1.0, 100, INT_MAX).has_value()) << "headroom";
}

}  // namespace
