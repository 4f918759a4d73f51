// ember::linalg's LAPACK-backed ops on CUDA (cuSOLVER) against the CPU (OpenBLAS's LAPACK):
// solve, inv, det/slogdet (getrf/getrs), cholesky (potrf), qr (geqrf/orgqr), svd/svdvals (gesvd),
// eigh/eigvalsh (syevd), batched and not, float32 and float64; the errors for singular,
// indefinite and non-finite input are the CPU's, word for word. Factors that are unique only up
// to signs (Q, U, V, eigenvectors) are compared after aligning each column's sign to the CPU's.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember_cuda_test;

namespace {

// Decompositions take different paths on the two devices (blocking, reduction order), so float32
// agrees to a few hundred ulps of the well-conditioned inputs below, float64 to ~1e-10.
struct LapackTol {
  double rtol, atol;
};
LapackTol lapack_tol(ScalarType t) {
  return t == kDouble ? LapackTol{1e-9, 1e-10} : LapackTol{2e-4, 2e-4};
}

void expect_close_to_cpu(const Tensor& cpu, const Tensor& cuda, const std::string& what) {
  ASSERT_TRUE(cuda.is_cuda()) << what << ": the result is on " << cuda.device();
  const Tensor got = cuda.cpu();
  ASSERT_EQ(got.dtype(), cpu.dtype()) << what;
  ASSERT_EQ(got.sizes(), cpu.sizes()) << what;
  const LapackTol tol = lapack_tol(cpu.dtype());
  EXPECT_TRUE(allclose(got.to(kDouble), cpu.to(kDouble), tol.rtol, tol.atol, /*equal_nan=*/true))
      << what << " (" << cpu.dtype() << ")\ncpu:  " << cpu << "\ncuda: " << got;
}

// Each column of `x` (a CUDA result) times the sign that best matches the same column of `ref`.
Tensor align_columns(const Tensor& x, const Tensor& ref) {
  const Tensor h = x.cpu();
  const Tensor s = sign(sum(h * ref, {-2}, /*keepdim=*/true));
  return (h * where(eq(s, 0), Scalar(1), s)).to(x.device());
}
Tensor align_rows(const Tensor& x, const Tensor& ref) {
  return align_columns(x.mT(), ref.mT()).mT();
}

// Well-conditioned general matrices: N(0, 1) plus n on the diagonal.
Tensor general_input(std::vector<int64_t> shape, ScalarType t, uint64_t seed) {
  Generator g(seed);
  Tensor a = randn(shape, g, TensorOptions().dtype(kDouble));
  const int64_t n = shape.back();
  return (a + eye(n, TensorOptions().dtype(kDouble)) * double(n)).to(t);
}
// Symmetric positive-definite: X Xᵀ + n I.
Tensor spd_input(std::vector<int64_t> shape, ScalarType t, uint64_t seed) {
  Generator g(seed);
  Tensor x = randn(shape, g, TensorOptions().dtype(kDouble));
  const int64_t n = shape.back();
  return (matmul(x, x.mT()) + eye(n, TensorOptions().dtype(kDouble)) * double(n)).to(t);
}
Tensor rect_input(std::vector<int64_t> shape, ScalarType t, uint64_t seed) {
  Generator g(seed);
  return randn(shape, g, TensorOptions().dtype(kDouble)).to(t);
}

// The message of the ember::Error fn throws ("" and a test failure when it throws none).
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ember::Error";
  return "";
}

const std::vector<std::vector<int64_t>> kSquareShapes = {{5, 5}, {3, 4, 4}, {2, 3, 6, 6}};

TEST(CudaLapack, SolveMatchesCpuBatchedAndBroadcast) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble}) {
    const std::string ts = to_string(t);
    for (const auto& shape : kSquareShapes) {
      const Tensor A = general_input(shape, t, 1);
      std::vector<int64_t> bshape = shape;
      bshape.back() = 3;
      const Tensor B = rect_input(bshape, t, 2);
      expect_close_to_cpu(linalg::solve(A, B), linalg::solve(on_cuda(A), on_cuda(B)),
                          "solve " + ts);
      expect_close_to_cpu(linalg::solve(A, B.mT(), /*left=*/false),
                          linalg::solve(on_cuda(A), on_cuda(B).mT(), false), "solve left " + ts);
    }
    // One A for a batch of B (one factorisation), a vector B, and a partly broadcast A.
    const Tensor A = general_input({4, 4}, t, 3), B = rect_input({5, 4, 2}, t, 4);
    expect_close_to_cpu(linalg::solve(A, B), linalg::solve(on_cuda(A), on_cuda(B)),
                        "solve shared A " + ts);
    const Tensor v = rect_input({4}, t, 5);
    expect_close_to_cpu(linalg::solve(A, v), linalg::solve(on_cuda(A), on_cuda(v)),
                        "solve vector " + ts);
    const Tensor A2 = general_input({2, 1, 4, 4}, t, 6), B2 = rect_input({3, 4, 2}, t, 7);
    expect_close_to_cpu(linalg::solve(A2, B2), linalg::solve(on_cuda(A2), on_cuda(B2)),
                        "solve broadcast " + ts);
  }
}

TEST(CudaLapack, InvDetAndSlogdetMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble}) {
    const std::string ts = to_string(t);
    for (const auto& shape : kSquareShapes) {
      // Negate some rows so that determinants of both signs and row swaps occur.
      Tensor A = general_input(shape, t, 8);
      A = A *
          where(lt(rect_input({shape[shape.size() - 2], 1}, t, 9), 0), Scalar(-1.0), Scalar(1.0))
              .to(t);
      const Tensor dA = on_cuda(A);
      expect_close_to_cpu(linalg::inv(A), linalg::inv(dA), "inv " + ts);
      auto [inv_cpu, info_cpu] = linalg::inv_ex(A);
      auto [inv_cuda, info_cuda] = linalg::inv_ex(dA);
      expect_close_to_cpu(inv_cpu, inv_cuda, "inv_ex " + ts);
      EXPECT_TRUE(info_cuda.is_cuda());
      EXPECT_TRUE(equal(info_cuda.cpu(), info_cpu)) << "inv_ex info " << ts;
      // det grows like n^n: compare relative to its size.
      expect_close_to_cpu(linalg::det(A) / linalg::det(A).abs(),
                          linalg::det(dA) / linalg::det(A).abs().to(dA.device()), "det " + ts);
      auto [s_cpu, l_cpu] = linalg::slogdet(A);
      auto [s_cuda, l_cuda] = linalg::slogdet(dA);
      expect_close_to_cpu(s_cpu, s_cuda, "slogdet sign " + ts);
      expect_close_to_cpu(l_cpu, l_cuda, "slogdet logabs " + ts);
    }
    // A singular matrix: det 0, slogdet (0, -inf), the same on both devices.
    const Tensor sing = tensor({1.0, 2.0, 2.0, 4.0}, TensorOptions().dtype(t)).reshape({2, 2});
    expect_close_to_cpu(linalg::det(sing), linalg::det(on_cuda(sing)), "det singular " + ts);
    auto [s0, l0] = linalg::slogdet(on_cuda(sing));
    EXPECT_EQ(s0.cpu().item<double>(), 0.0);
    EXPECT_EQ(l0.cpu().item<double>(), -std::numeric_limits<double>::infinity());
  }
}

TEST(CudaLapack, CholeskyMatchesCpuInBothTriangles) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble}) {
    const std::string ts = to_string(t);
    for (const auto& shape : kSquareShapes) {
      const Tensor A = spd_input(shape, t, 10), dA = on_cuda(A);
      expect_close_to_cpu(linalg::cholesky(A), linalg::cholesky(dA), "cholesky L " + ts);
      expect_close_to_cpu(linalg::cholesky(A, /*upper=*/true), linalg::cholesky(dA, true),
                          "cholesky U " + ts);
      auto [L, info] = linalg::cholesky_ex(dA);
      EXPECT_TRUE(info.is_cuda());
      EXPECT_EQ(info.cpu().abs().sum().item<int64_t>(), 0) << "cholesky_ex info " << ts;
    }
  }
}

TEST(CudaLapack, QrMatchesCpuInEveryMode) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble}) {
    const std::string ts = to_string(t);
    for (auto shape : std::vector<std::vector<int64_t>>{{6, 4}, {4, 6}, {3, 5, 5}, {2, 7, 3}}) {
      const Tensor A = rect_input(shape, t, 11), dA = on_cuda(A);
      const int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
      for (const char* mode : {"reduced", "complete"}) {
        const std::string what = std::string("qr ") + mode + " " + ts;
        auto [Q, R] = linalg::qr(A, mode);
        auto [dQ, dR] = linalg::qr(dA, mode);
        // Householder signs are each library's choice: align the first k columns of Q (and rows
        // of R) to the CPU's. Complete Q's extra columns only need to be orthonormal.
        const Tensor Qk = Q.narrow(-1, 0, k), dQk = align_columns(dQ.narrow(-1, 0, k), Qk);
        expect_close_to_cpu(Qk, dQk, what + " Q");
        expect_close_to_cpu(R.narrow(-2, 0, k), align_rows(dR.narrow(-2, 0, k), R.narrow(-2, 0, k)),
                            what + " R");
        expect_close_to_cpu(A, matmul(dQ, dR), what + " QR = A");
        const int64_t qc = dQ.size(-1);
        expect_close_to_cpu(eye(qc, TensorOptions().dtype(t)).expand(Q.mT().matmul(Q).sizes()),
                            matmul(dQ.mT(), dQ), what + " QᵀQ = I");
      }
      auto [none, dRr] = linalg::qr(dA, "r");
      EXPECT_EQ(none.numel(), 0);
      const Tensor Rr = std::get<1>(linalg::qr(A, "r"));
      expect_close_to_cpu(Rr.narrow(-2, 0, k),
                          align_rows(dRr.narrow(-2, 0, k), Rr.narrow(-2, 0, k)), "qr r " + ts);
    }
  }
}

TEST(CudaLapack, SvdMatchesCpuTallAndWide) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble}) {
    const std::string ts = to_string(t);
    // Wide matrices take the transposed path (cuSOLVER's gesvd wants rows >= cols).
    for (auto shape :
         std::vector<std::vector<int64_t>>{{6, 4}, {4, 6}, {5, 5}, {3, 5, 3}, {2, 3, 7}}) {
      const Tensor A = rect_input(shape, t, 12), dA = on_cuda(A);
      const int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
      for (bool full : {false, true}) {
        const std::string what = std::string("svd ") + (full ? "full " : "reduced ") + ts;
        auto [U, S, Vh] = linalg::svd(A, full);
        auto [dU, dS, dVh] = linalg::svd(dA, full);
        ASSERT_EQ(dU.sizes(), U.sizes()) << what;
        ASSERT_EQ(dVh.sizes(), Vh.sizes()) << what;
        expect_close_to_cpu(S, dS, what + " S");
        // Singular vectors are unique up to sign (distinct singular values); the extra columns
        // of a full U or V only need to be orthonormal.
        const Tensor Uk = U.narrow(-1, 0, k), Vk = Vh.narrow(-2, 0, k);
        expect_close_to_cpu(Uk, align_columns(dU.narrow(-1, 0, k), Uk), what + " U");
        expect_close_to_cpu(Vk, align_rows(dVh.narrow(-2, 0, k), Vk), what + " Vh");
        expect_close_to_cpu(A, matmul(dU.narrow(-1, 0, k) * dS.unsqueeze(-2), dVh.narrow(-2, 0, k)),
                            what + " U S Vh = A");
        const Tensor
            Im = eye(dU.size(-1), TensorOptions().dtype(t)).expand(U.mT().matmul(U).sizes()),
            In = eye(dVh.size(-2), TensorOptions().dtype(t)).expand(Vh.matmul(Vh.mT()).sizes());
        expect_close_to_cpu(Im, matmul(dU.mT(), dU), what + " UᵀU = I");
        expect_close_to_cpu(In, matmul(dVh, dVh.mT()), what + " VhVhᵀ = I");
      }
      expect_close_to_cpu(linalg::svdvals(A), linalg::svdvals(dA), "svdvals " + ts);
    }
  }
}

TEST(CudaLapack, EighMatchesCpuInBothTriangles) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble}) {
    const std::string ts = to_string(t);
    for (const auto& shape : kSquareShapes) {
      const Tensor S = spd_input(shape, t, 13) - 2.0 * double(shape.back());  // both signs
      // Only one triangle is read: garbage in the other must not matter.
      const Tensor A = S.tril() + rect_input(shape, t, 14).triu(1) * 100;
      for (const char* uplo : {"L", "U"}) {
        const Tensor in = std::string(uplo) == "L" ? A : A.mT().contiguous();
        const Tensor din = on_cuda(in);
        auto [L, V] = linalg::eigh(in, uplo);
        auto [dL, dV] = linalg::eigh(din, uplo);
        const std::string what = std::string("eigh ") + uplo + " " + ts;
        expect_close_to_cpu(L, dL, what + " values");
        expect_close_to_cpu(V, align_columns(dV, V), what + " vectors");
        expect_close_to_cpu(linalg::eigvalsh(in, uplo), linalg::eigvalsh(din, uplo),
                            "eigvalsh " + what);
      }
    }
  }
}

TEST(CudaLapack, ComposedOpsRunOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor A = rect_input({5, 3}, kDouble, 15);
  expect_close_to_cpu(linalg::pinv(A), linalg::pinv(on_cuda(A)), "pinv");
  expect_close_to_cpu(linalg::matrix_rank(A), linalg::matrix_rank(on_cuda(A)), "matrix_rank");
}

TEST(CudaLapack, GradientsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor A0 = general_input({3, 4, 4}, kDouble, 16), S0 = spd_input({4, 4}, kDouble, 17);
  auto grad_of = [](const Tensor& x0, auto f) {
    Tensor x = x0.detach().clone().requires_grad_(true);
    f(x).sum().backward();
    return x.grad();
  };
  const auto inv_sum = [](const Tensor& x) { return linalg::inv(x); };
  const auto det_sum = [](const Tensor& x) { return linalg::det(x); };
  const auto chol_sum = [](const Tensor& x) { return linalg::cholesky(x); };
  const auto eig_sum = [](const Tensor& x) { return linalg::eigvalsh(x) * linalg::eigvalsh(x); };
  expect_close_to_cpu(grad_of(A0, inv_sum), grad_of(on_cuda(A0), inv_sum), "inv gradient");
  expect_close_to_cpu(grad_of(A0, det_sum), grad_of(on_cuda(A0), det_sum), "det gradient");
  expect_close_to_cpu(grad_of(S0, chol_sum), grad_of(on_cuda(S0), chol_sum), "cholesky gradient");
  expect_close_to_cpu(grad_of(S0, eig_sum), grad_of(on_cuda(S0), eig_sum), "eigvalsh gradient");
}

TEST(CudaLapack, SingularIndefiniteAndNonFiniteInputsGiveTheCpuErrors) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : {kFloat, kDouble}) {
    const TensorOptions o = TensorOptions().dtype(t);
    // Batch element 1 is singular (an exact zero pivot on both devices).
    const Tensor sing = stack({eye(2, o), tensor({1.0, 2.0, 2.0, 4.0}, o).reshape({2, 2})});
    for (auto f : {+[](const Tensor& a) { (void)linalg::inv(a); },
                   +[](const Tensor& a) { (void)linalg::solve(a, a); }}) {
      const std::string cpu = error_of([&] { f(sing); });
      EXPECT_NE(cpu.find("singular"), std::string::npos) << cpu;
      EXPECT_EQ(error_of([&] { f(on_cuda(sing)); }), cpu);
    }
    auto [inv_cpu, info_cpu] = linalg::inv_ex(sing);
    auto [inv_cuda, info_cuda] = linalg::inv_ex(on_cuda(sing));
    EXPECT_TRUE(equal(info_cuda.cpu(), info_cpu)) << info_cuda;
    // Not positive-definite at the leading minor of order 2.
    const Tensor indef = stack(
        {eye(3, o), tensor({1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 2.0}, o).reshape({3, 3})});
    const std::string chol = error_of([&] { linalg::cholesky(indef); });
    EXPECT_NE(chol.find("order 2"), std::string::npos) << chol;
    EXPECT_EQ(error_of([&] { linalg::cholesky(on_cuda(indef)); }), chol);
    auto [L, info] = linalg::cholesky_ex(on_cuda(indef));
    EXPECT_TRUE(equal(info.cpu(), std::get<1>(linalg::cholesky_ex(indef)))) << info;
    // Non-finite input: NaN for inv/solve/det/qr, an error for svd and eigh, on both devices
    // (no cuSOLVER routine is handed one).
    Tensor bad = eye(3, o).expand({2, 3, 3}).clone();
    bad[1][0][1] = std::numeric_limits<double>::infinity();
    const Tensor dbad = on_cuda(bad);
    expect_close_to_cpu(linalg::inv(bad), linalg::inv(dbad), "inv non-finite");
    expect_close_to_cpu(linalg::det(bad), linalg::det(dbad), "det non-finite");
    // (R's signs are each library's choice: compared in magnitude.)
    expect_close_to_cpu(abs(std::get<1>(linalg::qr(bad))), abs(std::get<1>(linalg::qr(dbad))),
                        "qr non-finite");
    const std::string svd = error_of([&] { linalg::svd(bad); });
    EXPECT_NE(svd.find("non-finite"), std::string::npos) << svd;
    EXPECT_EQ(error_of([&] { linalg::svd(dbad); }), svd);
    const Tensor sym_bad = bad + bad.mT();  // inf in both triangles
    EXPECT_EQ(error_of([&] { linalg::eigh(on_cuda(sym_bad)); }),
              error_of([&] { linalg::eigh(sym_bad); }));
    EXPECT_EQ(error_of([&] { linalg::cholesky(on_cuda(sym_bad)); }),
              error_of([&] { linalg::cholesky(sym_bad); }));
  }
}

TEST(CudaLapack, EmptyShapesAndHostOnlyOps) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const TensorOptions o = TensorOptions().dtype(kDouble);
  for (auto shape : std::vector<std::vector<int64_t>>{{0, 0}, {0, 3, 3}, {2, 0, 0}}) {
    const Tensor A = zeros(shape, o), dA = on_cuda(A);
    expect_close_to_cpu(linalg::inv(A), linalg::inv(dA), "inv empty");
    expect_close_to_cpu(linalg::det(A), linalg::det(dA), "det empty");
    expect_close_to_cpu(linalg::cholesky(A), linalg::cholesky(dA), "cholesky empty");
    expect_close_to_cpu(linalg::eigvalsh(A), linalg::eigvalsh(dA), "eigvalsh empty");
    expect_close_to_cpu(linalg::svdvals(A), linalg::svdvals(dA), "svdvals empty");
  }
  // matrix_exp computes on the host: a clear error naming the op and the device.
  ember_test::expect_error<NotImplementedError>(
      [] { linalg::matrix_exp(on_cuda(eye(2, TensorOptions().dtype(kDouble)))); },
      {"linalg.matrix_exp", "cuda"});
  // The CUDA SVD is gesvd; the other drivers are refused by name.
  const Tensor dA = on_cuda(rect_input({4, 3}, kDouble, 18));
  expect_close_to_cpu(linalg::svdvals(dA.cpu()), linalg::svdvals(dA, "gesvd"), "driver gesvd");
  ember_test::expect_error<NotImplementedError>([&] { linalg::svdvals(dA, "gesvdj"); },
                                                {"linalg.svdvals", "gesvdj"});
}

}  // namespace
