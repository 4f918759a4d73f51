// Gradient test entries of the linalg ops (see grad_op_info.h): the products, einsum and
// ember::linalg. Decompositions are checked through functions that do not depend on the signs
// of singular vectors / eigenvectors (abs, or products in which the signs cancel), as PyTorch's
// tests do; cholesky and eigh get a symmetric (positive-definite) matrix built inside fn.
#include <cmath>

#include "ember/ops/linalg_householder.h"
#include "tests/autograd/grad_op_info.h"

using namespace ember;

namespace {
using Inputs = std::vector<Tensor>;
using Shapes = std::vector<std::vector<int64_t>>;
using Fn = std::function<Tensor(const Inputs&)>;
constexpr double kInf = INFINITY;

GradOpInfo entry(std::string name, Shapes shapes, Fn fn, bool gradgrad = false) {
  GradOpInfo info;
  info.name = std::move(name);
  info.shapes = std::move(shapes);
  info.fn = std::move(fn);
  info.gradgrad = gradgrad;
  return info;
}
GradOpInfo with(GradOpInfo info, bool broadcast, bool zero_size) {
  info.broadcast = broadcast;
  info.zero_size = zero_size;
  return info;
}

// Square matrices made well-conditioned by a dominant diagonal (inputs at `which`; all if -1).
std::function<Tensor(size_t, const std::vector<int64_t>&)> well_conditioned(int which = -1) {
  return [which](size_t i, const std::vector<int64_t>& shape) {
    Tensor t = uniform_double(shape, -1, 1);
    if (which >= 0 && static_cast<int>(i) != which) return t;
    return t + eye(shape.back(), kDouble) * 4;
  };
}
// A symmetric positive-definite matrix from a free one: X Xᵀ + n I.
Tensor spd(const Tensor& x) {
  return x.matmul(x.mT()) + eye(x.size(-2), x.options()) * static_cast<double>(x.size(-2));
}
Tensor sym(const Tensor& x) { return x + x.mT(); }
}  // namespace

void add_linalg_grad_ops(std::vector<GradOpInfo>& ops) {
  // ---- Products ----
  ops.push_back(
      with(entry(
               "mm", {{3, 4}, {4, 5}}, [](const Inputs& x) { return x[0].mm(x[1]); }, true),
           false, false));
  // A transposed second operand (the BLAS reads it through its strides), zero-size m and n.
  ops.push_back(entry("mm", {{3, 4}, {5, 4}}, [](const Inputs& x) { return x[0].mm(x[1].t()); }));
  ops.push_back(
      with(entry(
               "bmm", {{2, 3, 4}, {2, 4, 5}}, [](const Inputs& x) { return x[0].bmm(x[1]); }, true),
           false, true));

  auto matmul_fn = [](const Inputs& x) { return matmul(x[0], x[1]); };
  ops.push_back(entry("matmul", {{4}, {4}}, matmul_fn, true));                        // dot
  ops.push_back(with(entry("matmul", {{3, 4}, {4}}, matmul_fn), true, false));        // mv
  ops.push_back(with(entry("matmul", {{4}, {4, 5}}, matmul_fn, true), false, true));  // row
  ops.push_back(with(entry("matmul", {{3, 4}, {4, 5}}, matmul_fn), false, false));    // mm
  ops.push_back(entry("matmul", {{2, 1, 3, 4}, {3, 4, 5}}, matmul_fn, true));         // batch
  ops.push_back(with(entry("matmul", {{2, 3, 4}, {4, 5}}, matmul_fn, true), false, false));
  ops.push_back(with(entry("matmul", {{2, 3, 4}, {4}}, matmul_fn), false, false));
  ops.push_back(with(entry("matmul", {{4}, {2, 4, 5}}, matmul_fn), false, false));
  ops.push_back(entry("matmul", {{3, 4}, {2, 4, 5}}, matmul_fn));

  ops.push_back(with(entry(
                         "addmm", {{3, 5}, {3, 4}, {4, 5}},
                         [](const Inputs& x) { return addmm(x[0], x[1], x[2], 0.5, 2); }, true),
                     false, false));
  ops.push_back(with(entry("addmm", {{5}, {3, 4}, {4, 5}},
                           [](const Inputs& x) { return addmm(x[0], x[1], x[2]); }),
                     false, false));
  ops.push_back(with(entry("baddbmm", {{2, 3, 5}, {2, 3, 4}, {2, 4, 5}},
                           [](const Inputs& x) { return baddbmm(x[0], x[1], x[2], 0.5, 2); }),
                     false, true));
  ops.push_back(with(entry("baddbmm", {{3, 5}, {2, 3, 4}, {2, 4, 5}},
                           [](const Inputs& x) { return baddbmm(x[0], x[1], x[2]); }),
                     false, false));
  ops.push_back(entry(
      "dot", {{5}, {5}}, [](const Inputs& x) { return dot(x[0], x[1]); }, true));
  ops.push_back(with(entry("mv", {{3, 4}, {4}}, [](const Inputs& x) { return mv(x[0], x[1]); }),
                     true, false));
  ops.push_back(entry(
      "outer", {{3}, {4}}, [](const Inputs& x) { return outer(x[0], x[1]); }, true));

  // ---- einsum (records through permute, reshape, sum and bmm) ----
  auto einsum_entry = [](const char* eq, Shapes shapes, bool gradgrad = false) {
    return entry(
        "einsum", std::move(shapes), [eq](const Inputs& x) { return einsum(eq, x); }, gradgrad);
  };
  ops.push_back(with(einsum_entry("ij,jk->ik", {{3, 4}, {4, 5}}, true), true, false));
  ops.push_back(einsum_entry("bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, true));
  ops.push_back(einsum_entry("bij,bkj->bik", {{2, 3, 4}, {2, 5, 4}}));
  ops.push_back(einsum_entry("...ij,...jk->...ik", {{2, 1, 3, 4}, {3, 4, 5}}));
  ops.push_back(with(einsum_entry("ii->i", {{3, 3}}), true, false));
  ops.push_back(with(einsum_entry("ii", {{3, 3}}), true, false));
  ops.push_back(einsum_entry("ij->", {{3, 4}}));
  ops.push_back(with(einsum_entry("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}), true, false));
  ops.push_back(einsum_entry("bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}));

  // ---- Decompositions ----
  ops.push_back(
      entry("linalg_qr", {{4, 3}}, [](const Inputs& x) { return std::get<0>(linalg::qr(x[0])); }));
  ops.push_back(
      entry("linalg_qr", {{4, 3}}, [](const Inputs& x) { return std::get<1>(linalg::qr(x[0])); }));
  ops.push_back(entry("linalg_qr", {{2, 4, 3}}, [](const Inputs& x) {
    auto [Q, R] = linalg::qr(x[0]);
    return Q.matmul(R * R);
  }));
  ops.push_back(entry("linalg_qr", {{3, 5}}, [](const Inputs& x) {  // wide: m < n
    auto [Q, R] = linalg::qr(x[0]);
    return Q.matmul(R * R);
  }));
  ops.push_back(with(entry("linalg_qr", {{3, 5}},
                           [](const Inputs& x) {  // complete == reduced when m <= n
                             auto [Q, R] = linalg::qr(x[0], "complete");
                             return Q * 2 + R.narrow(-1, 0, 3);
                           }),
                     true, false));

  // Functions of (U, S, Vh) that do not depend on the singular vectors' signs.
  auto svd_invariant = [](bool full) {
    return [full](const Inputs& x) {
      auto [U, S, Vh] = linalg::svd(x[0], full);
      const int64_t k = S.size(-1);
      U = U.narrow(-1, 0, k);
      Vh = Vh.narrow(-2, 0, k);
      return (U.abs() * S.unsqueeze(-2)).matmul(Vh.abs());
    };
  };
  ops.push_back(entry("linalg_svd", {{4, 3}}, svd_invariant(false)));
  ops.push_back(entry("linalg_svd", {{3, 5}}, svd_invariant(false)));
  ops.push_back(entry("linalg_svd", {{2, 4, 3}}, svd_invariant(true)));
  ops.push_back(with(entry("linalg_svd", {{3, 3}},
                           [](const Inputs& x) {  // full_matrices (the default) on a square A
                             auto [U, S, Vh] = linalg::svd(x[0]);
                             return U.matmul(Vh) + U.matmul(S.unsqueeze(-1) * S.unsqueeze(-1) * Vh);
                           }),
                     true, false));
  ops.push_back(
      entry("linalg_svdvals", {{4, 3}}, [](const Inputs& x) { return linalg::svdvals(x[0]); }));
  ops.push_back(
      entry("linalg_svdvals", {{2, 3, 5}}, [](const Inputs& x) { return linalg::svdvals(x[0]); }));

  ops.push_back(with(entry("linalg_eigh", {{4, 4}},
                           [](const Inputs& x) {
                             auto [L, V] = linalg::eigh(sym(x[0]));
                             return V * V * L.unsqueeze(-2);
                           }),
                     true, false));
  ops.push_back(entry("linalg_eigh", {{2, 3, 3}}, [](const Inputs& x) {
    auto [L, V] = linalg::eigh(sym(x[0]), "U");
    return V.abs() + L.unsqueeze(-2);
  }));
  ops.push_back(with(entry("linalg_eigvalsh", {{4, 4}},
                           [](const Inputs& x) { return linalg::eigvalsh(sym(x[0])); }),
                     true, false));
  ops.push_back(entry("linalg_eigvalsh", {{2, 3, 3}},
                      [](const Inputs& x) { return linalg::eigvalsh(spd(x[0]), "U"); }));

  // ---- Inverse, solve, cholesky, determinants ----
  GradOpInfo inv =
      with(entry(
               "linalg_inv", {{3, 3}}, [](const Inputs& x) { return linalg::inv(x[0]); }, true),
           true, false);
  inv.make_input = well_conditioned();
  ops.push_back(inv);
  inv.shapes = {{2, 3, 3}};
  inv.zero_size = true;
  inv.gradgrad = false;
  ops.push_back(inv);

  GradOpInfo solve = entry("linalg_solve", {{2, 3, 3}, {2, 3, 2}},
                           [](const Inputs& x) { return linalg::solve(x[0], x[1]); });
  solve.make_input = well_conditioned(0);
  ops.push_back(solve);          // broadcast variant: B's batch dim 1
  solve.shapes = {{3, 3}, {3}};  // vector B
  solve.zero_size = false;
  ops.push_back(solve);
  solve.shapes = {{2, 3, 3}, {2, 3}};  // a batch of vectors
  solve.broadcast = false;
  solve.zero_size = true;
  ops.push_back(solve);
  solve.shapes = {{2, 3, 3}, {3}};  // one vector for the batch
  ops.push_back(with(solve, false, false));

  ops.push_back(entry("linalg_cholesky", {{3, 3}},
                      [](const Inputs& x) { return linalg::cholesky(spd(x[0])); }));
  ops.push_back(entry("linalg_cholesky", {{2, 3, 3}},
                      [](const Inputs& x) { return linalg::cholesky(spd(x[0]), true); }));

  ops.push_back(
      with(entry(
               "linalg_det", {{3, 3}}, [](const Inputs& x) { return linalg::det(x[0]); }, true),
           true, false));
  ops.push_back(
      entry("linalg_det", {{2, 3, 3}}, [](const Inputs& x) { return linalg::det(x[0]); }));
  // A singular input (two equal rows): the gradient is the adjugate, taken by the SVD formula.
  GradOpInfo det_singular =
      with(entry("linalg_det", {{3, 3}}, [](const Inputs& x) { return linalg::det(x[0]); }), true,
           false);
  det_singular.make_input = [](size_t, const std::vector<int64_t>& shape) {
    Tensor t = uniform_double(shape, -2, 2);
    t.select(0, 2).copy_(t.select(0, 0));
    return t;
  };
  ops.push_back(det_singular);
  ops.push_back(with(entry("linalg_slogdet", {{3, 3}},
                           [](const Inputs& x) { return std::get<1>(linalg::slogdet(x[0])); }),
                     true, false));
  ops.push_back(entry("linalg_slogdet", {{2, 3, 3}},
                      [](const Inputs& x) { return std::get<1>(linalg::slogdet(x[0])); }));

  // ---- Norms ----
  auto matrix_norm_entry = [](std::string ord, Shapes shapes, std::vector<int64_t> dim,
                              bool keepdim, bool zero_size = true) {
    return with(entry("linalg_matrix_norm", std::move(shapes),
                      [=](const Inputs& x) {
                        if (ord == "fro" || ord == "nuc")
                          return linalg::matrix_norm(x[0], ord, dim, keepdim);
                        return linalg::matrix_norm(x[0], std::stod(ord), dim, keepdim);
                      }),
                true, zero_size);
  };
  ops.push_back(matrix_norm_entry("fro", {{3, 4}}, {-2, -1}, false));
  ops.push_back(matrix_norm_entry("fro", {{2, 3, 4}}, {0, 2}, true));
  ops.push_back(matrix_norm_entry("nuc", {{3, 4}}, {-2, -1}, false));
  ops.push_back(matrix_norm_entry("nuc", {{2, 3, 4}}, {2, 0}, false));
  ops.push_back(matrix_norm_entry("2", {{4, 3}}, {-2, -1}, false));
  ops.push_back(matrix_norm_entry("-2", {{2, 3, 4}}, {-1, -2}, true));
  ops.push_back(matrix_norm_entry("1", {{3, 4}}, {-2, -1}, false));
  ops.push_back(matrix_norm_entry("-1", {{2, 3, 4}}, {0, 1}, true));
  ops.push_back(matrix_norm_entry("inf", {{3, 4}}, {-2, -1}, false, false));
  ops.push_back(matrix_norm_entry("-inf", {{2, 3, 4}}, {2, 1}, false, false));

  auto vector_norm_entry = [](double ord, Shapes shapes, std::vector<int64_t> dim, bool keepdim,
                              bool zero_size = true) {
    GradOpInfo info = entry("linalg_vector_norm", std::move(shapes), [=](const Inputs& x) {
      return linalg::vector_norm(x[0], ord, dim, keepdim);
    });
    info.zero_size = zero_size;
    return info;
  };
  ops.push_back(vector_norm_entry(2, {{3, 4}}, {}, false));
  ops.push_back(vector_norm_entry(2, {{2, 3, 4}}, {0, 2}, true));
  ops.push_back(vector_norm_entry(1, {{3, 4}}, {1}, false));
  ops.push_back(vector_norm_entry(3, {{3, 4}}, {-1}, false));
  ops.push_back(vector_norm_entry(1.5, {{3, 4}}, {0}, true));
  ops.push_back(vector_norm_entry(0.5, {{3, 4}}, {}, false));
  ops.push_back(vector_norm_entry(-1, {{3, 4}}, {1}, false));
  ops.push_back(vector_norm_entry(0, {{3, 4}}, {1}, false));
  ops.push_back(vector_norm_entry(kInf, {{3, 4}}, {1}, false));
  ops.push_back(vector_norm_entry(-kInf, {{2, 3, 4}}, {0, 1}, true, false));
  ops.push_back(vector_norm_entry(2, {{}}, {}, false));

  GradOpInfo householder = entry("linalg_householder_product", {{4, 3}, {2}}, [](const Inputs& x) {
    return linalg::householder_product(x[0], x[1]);
  });
  householder.broadcast = false;  // tau's batch dims must equal input's
  householder.zero_size = false;  // zero rows: fewer rows than columns, an error (as PyTorch)
  ops.push_back(householder);
  householder.shapes = {{2, 4, 3}, {2, 3}};
  householder.zero_size = true;  // an empty batch
  ops.push_back(householder);

  GradOpInfo expm = with(entry("linalg_matrix_exp", {{3, 3}},
                               [](const Inputs& x) { return linalg::matrix_exp(x[0]); }),
                         true, false);
  expm.low = -1;
  expm.high = 1;
  ops.push_back(expm);
  expm.shapes = {{2, 3, 3}};
  expm.zero_size = true;
  ops.push_back(expm);
}
