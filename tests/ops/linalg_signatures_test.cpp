// ember::linalg with LibTorch's full argument lists (solve's left, svd's driver, the norms' dtype,
// the _ex forms, cross, pinv, matrix_rank), and non-finite inputs, which must never reach a LAPACK
// driver: gesdd never returns on some matrices holding an inf.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <limits>
#include <memory>
#include <thread>

#include "ember/ember.h"
#include "tests/ops/linalg_test_util.h"

using namespace ember;
using namespace linalg_test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

void expect_close64(const Tensor& a, const Tensor& b, const char* what, double tol = 1e-10) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  EXPECT_TRUE(a.allclose(b, tol, tol)) << what << ": " << a << " vs " << b;
}

bool all_nan(const Tensor& t) { return t.isnan().all().item<bool>(); }

// Runs `call` on a thread and fails if it has not finished within 10 s. A LAPACK driver that
// loops forever cannot be stopped, so then the whole test program ends at once (std::_Exit) with
// the reason, instead of hanging CI: the call hangs exactly when the non-finite check in front of
// the driver is gone.
template <class Fn>
void run_with_deadline(const char* what, Fn call) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([done, call]() mutable {
    try {
      call();
      done->set_value();
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  }).detach();
  if (finished.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    std::fprintf(stderr,
                 "FATAL: %s did not return within 10 s: a non-finite matrix reached LAPACK, "
                 "which loops forever on it\n",
                 what);
    std::fflush(stderr);
    std::_Exit(1);
  }
  finished.get();  // rethrows what the call threw
}

// The matrix of the report (float64, 4x3): gesdd with full_matrices never returns on it.
Tensor hanging_svd_input() {
  return tensor({{kInf, 0.578125, -0.9375},
                 {0.765625, 0.078125, -0.109375},
                 {0.78125, -0.25, 0.078125},
                 {0.296875, -0.28125, 0.140625}},
                dtype(kDouble));
}

TEST(LinalgNonFinite, SvdOfTheHangingMatrixThrowsPromptly) {
  const Tensor A = hanging_svd_input();
  for (bool full : {true, false}) {
    expect_error([&] { run_with_deadline("linalg::svd", [A, full] { linalg::svd(A, full); }); },
                 {"linalg.svd: The algorithm failed to converge because the input matrix contained "
                  "non-finite values."});
  }
  expect_error([&] { run_with_deadline("linalg::svdvals", [A] { linalg::svdvals(A); }); },
               {"linalg.svd", "non-finite"});
  // Through the ops built on the SVD, and batched (the batch element is named).
  expect_error([&] { run_with_deadline("matrix_norm", [A] { linalg::matrix_norm(A, 2); }); },
               {"linalg.svd", "non-finite"});
  expect_error(
      [&] {
        run_with_deadline("batched svd", [A] { linalg::svd(stack({sample({4, 3}, kDouble), A})); });
      },
      {"linalg.svd: (Batch element 1)", "non-finite"});
  expect_error([&] { run_with_deadline("pinv", [A] { linalg::pinv(A); }); }, {"linalg.svd"});
}

TEST(LinalgNonFinite, EighThrowsForNonFiniteValuesInItsTriangle) {
  Tensor A = tensor({{2.0, 1.0}, {1.0, kInf}}, dtype(kDouble));
  expect_error([&] { run_with_deadline("eigh", [A] { linalg::eigh(A); }); },
               {"linalg.eigh", "non-finite"});
  expect_error([&] { run_with_deadline("eigvalsh", [A] { linalg::eigvalsh(A, "U"); }); },
               {"linalg.eigvalsh", "non-finite"});
  // Only the triangle it reads counts (as LAPACK and PyTorch): a NaN above is never seen.
  Tensor above = tensor({{2.0, kNan}, {1.0, 3.0}}, dtype(kDouble));
  expect_close64(linalg::eigvalsh(above),
                 linalg::eigvalsh(tensor({{2.0, 1.0}, {1.0, 3.0}}, dtype(kDouble))),
                 "lower triangle");
  expect_error([&] { linalg::eigvalsh(above, "U"); }, {"linalg.eigvalsh", "non-finite"});
}

TEST(LinalgNonFinite, LuAndQrBasedOpsAnswerNaNPerMatrix) {
  // Ember's answer for NaN before this check (LAPACK's NaN), now for inf too and without LAPACK:
  // the affected matrix's results are NaN, the others' unchanged.
  const Tensor good = tensor({{2.0, 1.0}, {1.0, 3.0}}, dtype(kDouble));
  const Tensor bad = tensor({{2.0, kInf}, {1.0, 3.0}}, dtype(kDouble));
  const Tensor batch = stack({good, bad});
  const Tensor inv = linalg::inv(batch);
  expect_close64(inv[0], linalg::inv(good), "good matrix");
  EXPECT_TRUE(all_nan(inv[1]));
  const Tensor det = linalg::det(batch);
  EXPECT_DOUBLE_EQ(det[0].item<double>(), 5.0);
  EXPECT_TRUE(std::isnan(det[1].item<double>()));
  auto [sign, logabs] = linalg::slogdet(bad);
  EXPECT_TRUE(std::isnan(sign.item<double>()) && std::isnan(logabs.item<double>()));
  const Tensor rhs = tensor({{1.0}, {2.0}}, dtype(kDouble));
  const Tensor x = linalg::solve(batch, rhs);
  expect_close64(x[0], linalg::solve(good, rhs), "good system");
  EXPECT_TRUE(all_nan(x[1]));
  // A non-finite right-hand side, too.
  EXPECT_TRUE(all_nan(linalg::solve(good, tensor({kInf, 1.0}, dtype(kDouble)))));
  auto [Q, R] = linalg::qr(bad);
  EXPECT_TRUE(all_nan(Q) && all_nan(R));
  auto [inv_ex, info] = linalg::inv_ex(bad);
  EXPECT_TRUE(all_nan(inv_ex));
  EXPECT_EQ(info.item<int>(), 0);
}

TEST(LinalgNonFinite, CholeskyReportsTheMinorHoldingIt) {
  // As potrf does for a NaN: the first leading minor holding the value is not positive-definite.
  const Tensor A = tensor({{4.0, kNan, 0.0}, {2.0, 5.0, 0.0}, {0.0, kInf, 6.0}}, dtype(kDouble));
  expect_error([&] { linalg::cholesky(A); },
               {"linalg.cholesky", "not positive-definite", "leading minor of order 3"});
  expect_error([&] { linalg::cholesky(A, true); }, {"leading minor of order 2"});
  auto [L, info] = linalg::cholesky_ex(A);
  EXPECT_EQ(info.item<int>(), 3);
  EXPECT_TRUE(all_nan(L));
}

TEST(LinalgSignatures, SolveOnTheRight) {
  const Tensor A = sample({3, 3}, kDouble) + 3 * eye(3, dtype(kDouble));
  const Tensor B = sample({2, 3}, kDouble, 2);
  const Tensor X = linalg::solve(A, B, /*left=*/false);
  expect_close64(matmul(X, A), B, "X·A = B");
  expect_close64(linalg::solve(A, B.mT()), linalg::solve(A, B.mT(), true), "left by default");
  const Tensor batched = sample({4, 2, 3}, kDouble, 3);
  expect_close64(matmul(linalg::solve(A, batched, false), A), batched, "batched B");
  expect_error([&] { linalg::solve(A, sample({3}, kDouble), false); },
               {"linalg.solve", "left=False"});
  // Gradients flow through the transposes.
  Tensor a = A.clone().requires_grad_(true), b = B.clone().requires_grad_(true);
  linalg::solve(a, b, false).sum().backward();
  Tensor a2 = A.clone().requires_grad_(true), b2 = B.clone().requires_grad_(true);
  linalg::solve(a2.mT(), b2.mT()).sum().backward();
  expect_close64(a.grad(), a2.grad(), "dA");
  expect_close64(b.grad(), b2.grad(), "dB");
}

TEST(LinalgSignatures, SvdTakesADriverOnlyAsNullopt) {
  const Tensor A = sample({4, 3}, kDouble);
  auto [U, S, Vh] = linalg::svd(A, true, std::nullopt);
  EXPECT_EQ(U.sizes(), IntArrayRef({4, 4}));  // full_matrices defaults to true, as here
  EXPECT_EQ(std::get<0>(linalg::svd(A)).sizes(), IntArrayRef({4, 4}));
  expect_close64(linalg::svdvals(A, std::nullopt), S, "svdvals");
  expect_error([&] { linalg::svd(A, false, "gesvd"); }, {"linalg.svd", "driver", "gesvd"});
  expect_error([&] { linalg::svdvals(A, "gesvdj"); }, {"linalg.svdvals", "driver", "CUDA"});
}

TEST(LinalgSignatures, InvExAndCholeskyExReportInfoInsteadOfThrowing) {
  const Tensor sing = tensor({{1.0, 2.0}, {2.0, 4.0}}, dtype(kDouble));
  const Tensor batch = stack({eye(2, dtype(kDouble)), sing});
  auto [inv, info] = linalg::inv_ex(batch);
  EXPECT_EQ(info.dtype(), kInt);
  EXPECT_EQ(info.sizes(), IntArrayRef({2}));
  EXPECT_EQ(info[0].item<int>(), 0);
  EXPECT_EQ(info[1].item<int>(), 2);  // getrf's first zero pivot, as linalg.inv reports it
  expect_close64(inv[0], eye(2, dtype(kDouble)), "the regular one is inverted");
  expect_error([&] { linalg::inv_ex(batch, true); },
               {"linalg.inv_ex: (Batch element 1): The diagonal element 2 is zero"});
  const Tensor spd = tensor({{4.0, 2.0}, {2.0, 3.0}}, dtype(kDouble));
  auto [L, ok] = linalg::cholesky_ex(spd);
  EXPECT_EQ(ok.item<int>(), 0);
  expect_close64(L, linalg::cholesky(spd), "cholesky_ex = cholesky");
  auto [U, ok_upper] = linalg::cholesky_ex(spd, true);
  expect_close64(U, linalg::cholesky(spd, true), "upper");
  const Tensor indef = tensor({{1.0, 2.0}, {2.0, 1.0}}, dtype(kDouble));
  EXPECT_EQ(std::get<1>(linalg::cholesky_ex(indef)).item<int>(), 2);
  expect_error([&] { linalg::cholesky_ex(indef, false, true); },
               {"linalg.cholesky_ex", "leading minor of order 2"});
  // The inverse keeps its gradient.
  Tensor a = spd.clone().requires_grad_(true), a2 = spd.clone().requires_grad_(true);
  std::get<0>(linalg::inv_ex(a)).sum().backward();
  linalg::inv(a2).sum().backward();
  expect_close64(a.grad(), a2.grad(), "d inv_ex");
}

TEST(LinalgSignatures, NormsTakeScalarOrdsOptionalDimsAndDtype) {
  const Tensor x = sample({2, 3, 4}, kFloat);
  const Tensor x64 = x.to(kDouble);
  // Defaults: ord 2 over every dim (dim nullopt), no keepdim, x's dtype.
  expect_close64(linalg::vector_norm(x64), x64.square().sum().sqrt(), "2-norm of everything");
  expect_close64(linalg::vector_norm(x64, 1, {1, 2}), x64.abs().sum({1, 2}), "ord 1 over dims");
  expect_close64(linalg::vector_norm(x64, kInf, 2, true), x64.abs().amax({2}, true), "inf norm");
  const Tensor in_double = linalg::vector_norm(x, 3, {-1}, false, kDouble);
  EXPECT_EQ(in_double.dtype(), kDouble);
  expect_close64(in_double, linalg::vector_norm(x64, 3, {-1}), "dtype casts the input first");
  expect_error<TypeError>([&] { linalg::vector_norm(x, 2, std::nullopt, false, kLong); },
                          {"linalg.vector_norm", "floating"});

  const Tensor A = x64[0];  // 3 x 4
  expect_close64(linalg::matrix_norm(A, 1), A.abs().sum({0}).max(), "Scalar ord 1");
  expect_close64(linalg::matrix_norm(A, -kInf), A.abs().sum({1}).min(), "Scalar ord -inf");
  expect_close64(linalg::matrix_norm(A, "nuc"), linalg::svdvals(A).sum(), "nuc");
  expect_close64(linalg::matrix_norm(x, "fro", {-2, -1}, true, kDouble),
                 linalg::matrix_norm(x64, "fro", {-2, -1}, true), "fro with dtype");
  EXPECT_EQ(linalg::matrix_norm(x, 2, {0, 2}, false, kDouble).sizes(), IntArrayRef({3}));

  // norm: no ord is the 2-norm of the entries; a numeric ord on a matrix is a matrix norm.
  expect_close64(linalg::norm(x64), x64.square().sum().sqrt(), "flattened 2-norm");
  expect_close64(linalg::norm(A, 1), linalg::matrix_norm(A, 1), "matrix 1-norm");
  expect_close64(linalg::norm(A, 1, {1}), A.abs().sum({1}), "vector 1-norm over dim 1");
  expect_close64(linalg::norm(A[0], 1), A[0].abs().sum(), "vector 1-norm of a vector");
  expect_close64(linalg::norm(A, "fro"), linalg::matrix_norm(A), "string ord");
  expect_close64(linalg::norm(x64, "nuc", {1, 2}), linalg::matrix_norm(x64, "nuc", {1, 2}),
                 "string ord with dims");
  expect_close64(linalg::norm(x64, std::nullopt, {0, 2}, true),
                 linalg::vector_norm(x64, 2, {0, 2}, true), "no ord with dims");
  expect_error([&] { linalg::norm(x64, 2); }, {"linalg.norm", "1D or 2D", "3D"});
  expect_error([&] { linalg::norm(x64, "fro"); }, {"linalg.norm", "2D"});
  expect_error([&] { linalg::norm(A, 2, {0, 1, 1}); }, {"linalg.norm", "length 1 or 2"});
}

TEST(LinalgSignatures, CrossProducts) {
  const Tensor ex = tensor({1.0, 0.0, 0.0}, dtype(kDouble));
  const Tensor ey = tensor({0.0, 1.0, 0.0}, dtype(kDouble));
  expect_close64(linalg::cross(ex, ey), tensor({0.0, 0.0, 1.0}, dtype(kDouble)), "x × y = z");
  const Tensor a = tensor({{1.0, 2.0, 3.0}, {-1.0, 0.5, 2.0}}, dtype(kDouble));
  const Tensor b = tensor({{4.0, 5.0, 6.0}}, dtype(kDouble));  // broadcast over the rows
  expect_close64(linalg::cross(a, b),
                 tensor({{-3.0, 6.0, -3.0}, {-7.0, 14.0, -7.0}}, dtype(kDouble)), "dim -1");
  expect_close64(linalg::cross(a.mT(), b.expand({2, 3}).mT(), 0), linalg::cross(a, b).mT(),
                 "dim 0");
  Tensor ag = a.clone().requires_grad_(true);
  linalg::cross(ag, b).sum().backward();  // d/da Σ (a × b) = b × (1, 1, 1)
  expect_close64(ag.grad(), tensor({{-1.0, 2.0, -1.0}, {-1.0, 2.0, -1.0}}, dtype(kDouble)), "da");
  expect_error([&] { linalg::cross(a, b, 0); }, {"linalg.cross", "length 3"});
  expect_error<TypeError>([&] { linalg::cross(a, b.to(kFloat)); }, {"linalg.cross", "dtype"});
}

TEST(LinalgSignatures, PinvAndMatrixRank) {
  // Rank 2: the third column is the sum of the first two.
  const Tensor A =
      tensor({{1.0, 2.0, 3.0}, {0.0, 1.0, 1.0}, {2.0, 0.0, 2.0}, {1.0, 1.0, 2.0}}, dtype(kDouble));
  const Tensor P = linalg::pinv(A, std::nullopt, std::nullopt);
  EXPECT_EQ(P.sizes(), IntArrayRef({3, 4}));
  expect_close64(matmul(matmul(A, P), A), A, "A·A⁺·A = A", 1e-9);
  expect_close64(matmul(matmul(P, A), P), P, "A⁺·A·A⁺ = A⁺", 1e-9);
  expect_close64(matmul(A, P), matmul(A, P).mT(), "A·A⁺ symmetric", 1e-9);
  EXPECT_EQ(linalg::matrix_rank(A).item<int64_t>(), 2);
  EXPECT_EQ(linalg::matrix_rank(A).dtype(), kLong);
  const Tensor R = sample({3, 3}, kDouble) + 3 * eye(3, dtype(kDouble));
  expect_close64(linalg::pinv(R), linalg::inv(R), "pinv = inv when invertible", 1e-9);
  EXPECT_EQ(linalg::matrix_rank(R).item<int64_t>(), 3);
  // Tolerances: a huge atol (or legacy tol / rcond) drops every singular value.
  EXPECT_EQ(linalg::matrix_rank(R, 1e6).item<int64_t>(), 0);
  EXPECT_EQ(linalg::matrix_rank(R, std::nullopt, 2.0).item<int64_t>(), 0);
  EXPECT_TRUE(linalg::pinv(R, 2.0).eq(0).all().item<bool>());
  // The default rcond is LibTorch's 1e-15: it drops a singular value of 5e-16, which the newer
  // default (rtol = eps·max(m, n) ≈ 4.4e-16) keeps.
  const Tensor tiny = tensor({{1.0, 0.0}, {0.0, 5e-16}}, dtype(kDouble));
  expect_close64(linalg::pinv(tiny), tensor({{1.0, 0.0}, {0.0, 0.0}}, dtype(kDouble)), "rcond");
  EXPECT_NEAR(linalg::pinv(tiny, std::nullopt, std::nullopt)[1][1].item<double>(), 2e15, 1e3);
  EXPECT_EQ(linalg::matrix_rank(tiny).item<int64_t>(), 2);
  // hermitian: from eigh.
  const Tensor S = matmul(R, R.mT());
  expect_close64(linalg::pinv(S, std::nullopt, std::nullopt, true), linalg::pinv(S), "hermitian",
                 1e-9);
  EXPECT_EQ(linalg::matrix_rank(S, std::nullopt, std::nullopt, true).item<int64_t>(), 3);
  // Batched and empty.
  EXPECT_EQ(linalg::matrix_rank(stack({A, A * 0})).sizes(), IntArrayRef({2}));
  EXPECT_EQ(linalg::matrix_rank(stack({A, A * 0}))[1].item<int64_t>(), 0);
  EXPECT_EQ(linalg::pinv(empty({2, 0, 3}, dtype(kDouble))).sizes(), IntArrayRef({2, 3, 0}));
  // Gradients through the SVD: d/dR Σ pinv(R) equals d/dR Σ inv(R) for an invertible R.
  Tensor r1 = R.clone().requires_grad_(true), r2 = R.clone().requires_grad_(true);
  linalg::pinv(r1).sum().backward();
  linalg::inv(r2).sum().backward();
  expect_close64(r1.grad(), r2.grad(), "d pinv", 1e-8);
  expect_error([&] { linalg::pinv(A, std::nullopt, std::nullopt, true); },
               {"linalg.pinv", "square"});
}

}  // namespace
