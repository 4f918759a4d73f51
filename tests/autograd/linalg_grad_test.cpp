// Behaviour of the linalg gradients that the finite-difference table does not show: singular
// determinants, undefined derivatives that must throw, zero norms, dtypes, node names, and that
// the products' gradients have the inputs' shapes under batch broadcasting.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ember/ember.h"
#include "tests/autograd/test_util.h"

using namespace ember;
using namespace autograd_test;

namespace {
Tensor leaf(std::vector<double> v, std::vector<int64_t> shape) {
  return tensor(v, kDouble).reshape(shape).requires_grad_();
}
}  // namespace

TEST(LinalgGrad, DetOfSingularMatrixGivesTheAdjugate) {
  // det [[a, b], [c, d]] = ad - bc: its gradient is [[d, -c], [-b, a]], finite at det = 0.
  Tensor A = leaf({1, 2, 2, 4}, {2, 2});
  linalg::det(A).backward();
  expect_values(A.grad(), {4, -2, -2, 1});
}

TEST(LinalgGrad, DetOfBatchMixingSingularAndRegularMatrices) {
  Tensor A = leaf({1, 2, 2, 4, 2, 1, 1, 3}, {2, 2, 2});
  linalg::det(A).sum().backward();
  expect_values(A.grad(), {4, -2, -2, 1, 3, -1, -1, 2});
}

TEST(LinalgGrad, DetOfRankTwoDeficientMatrixHasZeroGradient) {
  Tensor A = zeros({3, 3}, kDouble);
  A.select(0, 0).fill_(1);
  A.requires_grad_();
  linalg::det(A).backward();
  EXPECT_EQ(A.grad().abs().max().item<double>(), 0);
}

TEST(LinalgGrad, SlogdetSignHasNoGradient) {
  Tensor A = leaf({2, 1, 1, -3}, {2, 2});
  auto [sign, logabs] = linalg::slogdet(A);
  EXPECT_TRUE(logabs.requires_grad());
  (sign * 3 + logabs).backward();
  // d log|det A| / dA = A⁻ᵀ = [[-3, -1], [-1, 2]] / -7
  expect_values(A.grad(), {3.0 / 7, 1.0 / 7, 1.0 / 7, -2.0 / 7});
}

TEST(LinalgGrad, QrModeRIsNotDifferentiable) {
  Tensor A = randn({4, 3}, kDouble).requires_grad_();
  Tensor R = std::get<1>(linalg::qr(A, "r"));
  ASSERT_TRUE(R.requires_grad());
  const std::string msg = message_of([&] { R.sum().backward(); });
  EXPECT_NE(msg.find("linalg.qr: the derivative of linalg.qr depends on Q"), std::string::npos)
      << msg;
}

TEST(LinalgGrad, QrCompleteOfTallMatrixIsNotDifferentiable) {
  Tensor A = randn({4, 3}, kDouble).requires_grad_();
  auto [Q, R] = linalg::qr(A, "complete");
  const std::string msg = message_of([&] { (Q.sum() + R.sum()).backward(); });
  EXPECT_NE(msg.find("not differentiable when mode='complete' and nrows > ncols"),
            std::string::npos)
      << msg;
}

TEST(LinalgGrad, VectorNormOfZeroInputHasZeroGradient) {
  for (double ord : {1.0, 1.5, 2.0, 3.0, double(INFINITY)}) {
    Tensor x = zeros({2, 3}, kDouble).requires_grad_();
    linalg::vector_norm(x, ord, {1}).sum().backward();
    EXPECT_EQ(x.grad().abs().max().item<double>(), 0) << "ord " << ord;
    EXPECT_FALSE(x.grad().isnan().any().item<bool>()) << "ord " << ord;
  }
}

TEST(LinalgGrad, FrobeniusNormOfZeroMatrixHasZeroGradient) {
  Tensor A = zeros({2, 3}, kDouble).requires_grad_();
  linalg::matrix_norm(A).backward();
  EXPECT_EQ(A.grad().abs().max().item<double>(), 0);
}

TEST(LinalgGrad, InfinityNormTiesShareTheGradient) {
  Tensor x = leaf({1, -3, 3}, {3});
  linalg::vector_norm(x, INFINITY).backward();
  expect_values(x.grad(), {0, -0.5, 0.5});
}

TEST(LinalgGrad, MatmulGradientsHaveTheBroadcastInputsShapes) {
  Tensor a = randn({2, 1, 3, 4}, kDouble).requires_grad_();
  Tensor b = randn({5, 4, 2}, kDouble).requires_grad_();
  Tensor v = randn({4}, kDouble).requires_grad_();
  (matmul(a, b).sum() + matmul(a, v).sum() + matmul(v, b).sum()).backward();
  EXPECT_EQ(a.grad().sizes(), a.sizes());
  EXPECT_EQ(b.grad().sizes(), b.sizes());
  EXPECT_EQ(v.grad().sizes(), v.sizes());
  // d/dv: b summed over its batch and columns (v @ b), plus a summed over its rows (a @ v).
  Tensor expected_v = b.detach().sum({0, 2}) + a.detach().sum({0, 1, 2});
  EXPECT_TRUE(allclose(v.grad(), expected_v));
}

TEST(LinalgGrad, MatmulOfBatchWithSharedMatrixMatchesLoopedProducts) {
  Tensor a = randn({3, 2, 4}, kDouble).requires_grad_();
  Tensor w = randn({4, 5}, kDouble).requires_grad_();
  Tensor g = randn({3, 2, 5}, kDouble);
  matmul(a, w).backward(g);
  Tensor expected = zeros({4, 5}, kDouble);
  for (int64_t i = 0; i < 3; ++i) expected = expected + a.detach()[i].t().mm(g[i]);
  EXPECT_TRUE(allclose(w.grad(), expected));
}

TEST(LinalgGrad, OuterOfMixedDtypesGivesEachInputItsDtype) {
  Tensor a = randn({3}, kFloat).requires_grad_();
  Tensor b = randn({4}, kDouble).requires_grad_();
  outer(a, b).sum().backward();
  EXPECT_EQ(a.grad().dtype(), kFloat);
  EXPECT_EQ(b.grad().dtype(), kDouble);
  EXPECT_TRUE(allclose(a.grad().to(kDouble), b.detach().sum().expand({3}), 1e-5, 1e-6));
}

TEST(LinalgGrad, FloatMatrixProductsRecordAndBackward) {
  Tensor a = randn({3, 4}).requires_grad_();
  Tensor b = randn({4, 2}).requires_grad_();
  Tensor c = a.mm(b);
  ASSERT_TRUE(c.grad_fn());
  EXPECT_EQ(c.grad_fn()->name(), "MmBackward0");
  c.sum().backward();
  EXPECT_TRUE(allclose(a.grad(), ones({3, 2}).mm(b.detach().t()), 1e-5, 1e-6));
}

TEST(LinalgGrad, SvdvalsAndEigvalshRecordThroughTheFullDecomposition) {
  Tensor A = randn({3, 3}, kDouble).requires_grad_();
  EXPECT_EQ(linalg::svdvals(A).grad_fn()->name(), "LinalgSvdBackward0");
  EXPECT_EQ(linalg::eigvalsh(A).grad_fn()->name(), "LinalgEighBackward0");
  // Without autograd they stay the values-only kernels (no grad_fn).
  Tensor B = randn({3, 3}, kDouble);
  EXPECT_FALSE(linalg::svdvals(B).requires_grad());
}

TEST(LinalgGrad, SolveWithVectorRightHandSideGivesVectorGradient) {
  Tensor A = (randn({3, 3}, kDouble) + eye(3, kDouble) * 4).requires_grad_();
  Tensor b = randn({3}, kDouble).requires_grad_();
  linalg::solve(A, b).sum().backward();
  EXPECT_EQ(b.grad().sizes(), b.sizes());
  // gB = A⁻ᵀ 1
  EXPECT_TRUE(allclose(b.grad(), linalg::solve(A.detach().t(), ones({3}, kDouble))));
}

TEST(LinalgGrad, MmOutRefusesInputsThatRequireGrad) {
  Tensor a = randn({2, 2}).requires_grad_();
  Tensor out = empty({2, 2});
  EXPECT_THROW(mm_out(out, a, a), Error);
  NoGradGuard guard;
  EXPECT_NO_THROW(mm_out(out, a, a));
}

TEST(LinalgGrad, InverseSecondDerivativeMatchesDirectFormula) {
  // d²/dA² of sum(A⁻¹) via create_graph equals the gradient of the first gradient taken by hand.
  Tensor A = (randn({3, 3}, kDouble) + eye(3, kDouble) * 4).requires_grad_();
  Tensor g = autograd::grad({linalg::inv(A).sum()}, {A}, {}, true, true)[0];
  Tensor gg = autograd::grad({g.sum()}, {A})[0];
  Tensor Ad = A.detach().clone().requires_grad_();
  Tensor inv_t = linalg::inv(Ad).t();
  Tensor manual = -inv_t.mm(ones({3, 3}, kDouble)).mm(inv_t);
  Tensor gg_manual = autograd::grad({manual.sum()}, {Ad})[0];
  EXPECT_TRUE(allclose(gg, gg_manual));
}

TEST(LinalgGrad, DecompositionsHaveSecondDerivatives) {
  // Each output's gradient must reach A through its own path under create_graph (a formula that
  // read a later output as the first one would fail here).
  manual_seed(7);
  auto check = [](const char* what, std::function<Tensor(const Tensor&)> f, Tensor x) {
    SCOPED_TRACE(what);
    auto fn = [&](const autograd::variable_list& in) { return autograd::variable_list{f(in[0])}; };
    try {
      autograd::gradgradcheck(fn, {x.requires_grad_()});
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  };
  check(
      "eigh",
      [](const Tensor& x) {
        auto [L, V] = linalg::eigh(x + x.mT());
        return V * V * L.unsqueeze(-2);
      },
      empty({3, 3}, kDouble).uniform_(-2, 2));
  check(
      "svd",
      [](const Tensor& x) {
        auto [U, S, Vh] = linalg::svd(x, false);
        return (U.abs() * S.unsqueeze(-2)).matmul(Vh.abs());
      },
      empty({4, 3}, kDouble).uniform_(-2, 2));
  check(
      "qr",
      [](const Tensor& x) {
        auto [Q, R] = linalg::qr(x);
        return Q.matmul(R * R);
      },
      empty({4, 3}, kDouble).uniform_(-2, 2));
  check(
      "cholesky",
      [](const Tensor& x) { return linalg::cholesky(x.matmul(x.mT()) + eye(3, kDouble) * 3); },
      empty({3, 3}, kDouble).uniform_(-2, 2));
  check(
      "matrix_exp", [](const Tensor& x) { return linalg::matrix_exp(x); },
      empty({3, 3}, kDouble).uniform_(-1, 1));
  check(
      "solve", [](const Tensor& x) { return linalg::solve(x + eye(3, kDouble) * 4, x.sum(1)); },
      empty({3, 3}, kDouble).uniform_(-1, 1));
  check(
      "matrix_norm nuc", [](const Tensor& x) { return linalg::matrix_norm(x, "nuc"); },
      empty({3, 4}, kDouble).uniform_(-2, 2));
  check(
      "vector_norm 3", [](const Tensor& x) { return linalg::vector_norm(x, 3, {1}); },
      empty({3, 4}, kDouble).uniform_(-2, 2));
}

// A product's operand that is a transposed view (F::linear's weight.t()) gets its gradient in its
// own layout, PyTorch's rule: the weight's gradient then arrives contiguous, and AccumulateGrad
// keeps it instead of copying a transposed one every step. The values are the plain formulas'.
TEST(LinalgGrad, TransposedOperandGetsGradientInItsOwnLayout) {
  manual_seed(3);
  const Tensor x = randn({5, 4}, TensorOptions(kDouble).requires_grad(true));
  const Tensor w = randn({3, 4}, TensorOptions(kDouble).requires_grad(true));
  const Tensor b = randn({3}, TensorOptions(kDouble).requires_grad(true));
  const Tensor g = randn({5, 3}, kDouble);
  for (const bool with_bias : {false, true}) {
    SCOPED_TRACE(with_bias ? "addmm" : "mm");
    const Tensor y = with_bias ? addmm(b, x, w.t()) : x.mm(w.t());
    const auto grads = autograd::grad({y}, {x, w}, {g});
    EXPECT_TRUE(grads[1].is_contiguous()) << grads[1].strides();
    EXPECT_TRUE(allclose(grads[1], g.t().mm(x.detach()), 1e-14, 0));
    EXPECT_TRUE(allclose(grads[0], g.mm(w.detach()), 1e-14, 0));
  }
  // The left operand transposed, too: x = xt.t() with xt [4, 5].
  const Tensor xt = randn({4, 5}, TensorOptions(kDouble).requires_grad(true));
  const Tensor gx = autograd::grad({xt.t().mm(w.detach().t())}, {xt}, {g})[0];
  EXPECT_TRUE(gx.is_contiguous()) << gx.strides();
  EXPECT_TRUE(allclose(gx, w.detach().t().mm(g.t()), 1e-14, 0));
  // And the weight's .grad after backward is the formula's value, laid out as the weight.
  const Tensor loss = addmm(b, x, w.t()).mul(g).sum();
  loss.backward();
  EXPECT_EQ(w.grad().strides(), w.strides());
  EXPECT_TRUE(allclose(w.grad(), g.t().mm(x.detach()), 1e-14, 0));
}
