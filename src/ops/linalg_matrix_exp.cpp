// ember::linalg::matrix_exp on the CPU: scaling and squaring with a diagonal Padé approximant
// (Higham, "The scaling and squaring method for the matrix exponential revisited", SIAM J. Matrix
// Anal. Appl. 26(4), 2005): the smallest degree m in {3, 5, 7, 9, 13} whose bound θ_m covers
// ‖A‖₁ is exact to double precision; past θ₁₃, A is halved s times, exponentiated with m = 13 and
// the result squared s times. float32 inputs are computed in float64 and rounded once.
//
// Per matrix: 6 products for m = 13, plus s squarings, plus one LU solve (the CPU's getrf/getrs
// slots), on n x n column-major host buffers. Host code: CUDA tensors are refused.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/linalg_common.h"

namespace ember::linalg {
namespace {

// An n x n column-major float64 matrix.
struct Square {
  explicit Square(int n_) : n(n_), v(static_cast<size_t>(n_) * static_cast<size_t>(n_)) {}
  double& operator()(int i, int j) {
    return v[static_cast<size_t>(i) + static_cast<size_t>(j) * n];
  }
  int n;
  std::vector<double> v;
};

Square product(const Square& a, const Square& b) {
  Square c(a.n);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, a.n, a.n, a.n, 1.0, a.v.data(), a.n,
              b.v.data(), b.n, 0.0, c.v.data(), c.n);
  return c;
}

// sum_k coef[k] * terms[k] + diag * I.
Square combine(std::initializer_list<std::pair<double, const Square*>> terms, double diag, int n) {
  Square out(n);
  for (const auto& [coef, m] : terms)
    for (size_t i = 0; i < out.v.size(); ++i) out.v[i] += coef * m->v[i];
  for (int i = 0; i < n; ++i) out(i, i) += diag;
  return out;
}

// Coefficients b_0..b_m of the [m/m] Padé approximant's numerator p(x) = Σ b_j x^j (the
// denominator is p(-x)): b_j = (2m-j)! m! / ((2m)! j! (m-j)!). Scale does not matter.
std::vector<double> pade_coefficients(int m) {
  std::vector<double> b(static_cast<size_t>(m) + 1);
  b[0] = 1;
  for (int j = 0; j < m; ++j)
    b[static_cast<size_t>(j) + 1] = b[static_cast<size_t>(j)] * (m - j) / ((2.0 * m - j) * (j + 1));
  return b;
}

double norm1(Square& a) {
  double best = 0;
  for (int j = 0; j < a.n; ++j) {
    double col = 0;
    for (int i = 0; i < a.n; ++i) col += std::abs(a(i, j));
    best = std::max(best, col);
  }
  return best;
}

// A host matrix as a LAPACK operand (the CPU kernels' memory).
LapackMatrices host_matrix(Square& a) {
  LapackMatrices M;
  M.data = a.v.data();
  M.rows = M.cols = M.ld = a.n;
  M.batch_stride = static_cast<int64_t>(a.v.size());
  return M;
}

// rhs = d⁻¹ rhs through the CPU's getrf/getrs slots (d is overwritten by its factors).
void lu_solve_host(Square& d, Square& rhs) {
  const char* op = "linalg.matrix_exp";
  std::vector<int32_t> pivots(static_cast<size_t>(d.n));
  int32_t info = 0;
  LuFactorParams f;
  f.op = op;
  f.info = &info;
  f.a = host_matrix(d);
  f.pivots = pivots.data();
  get_kernel<OpId::lu_factor>(kCPU, kDouble)(kDouble, f);
  EMBER_CHECK(info == 0,
              "linalg.matrix_exp: the Padé denominator of a {} x {} matrix is singular (getrf "
              "info {}); this should not happen for finite input, please report it",
              d.n, d.n, info);
  LuSolveParams s;
  s.op = op;
  s.info = &info;
  s.lu = host_matrix(d);
  s.pivots = pivots.data();
  s.b = host_matrix(rhs);
  get_kernel<OpId::lu_solve>(kCPU, kDouble)(kDouble, s);
  EMBER_CHECK(info == 0, "linalg.matrix_exp: LAPACK's getrs rejected argument {} (an Ember bug)",
              -info);
}

// exp(a), in place.
void expm(Square& a) {
  const int n = a.n;
  const double norm = norm1(a);
  if (!std::isfinite(norm)) {  // inf or NaN entries: no approximant applies
    std::fill(a.v.begin(), a.v.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  // θ_m: the largest ‖A‖₁ for which the degree-m approximant is accurate to double precision
  // (Higham 2005, table 2.3).
  static constexpr struct {
    int m;
    double theta;
  } kDegrees[] = {{3, 1.495585217958292e-2},
                  {5, 2.539398330063230e-1},
                  {7, 9.504178996162932e-1},
                  {9, 2.097847961257068e0},
                  {13, 5.371920351148152e0}};
  int m = 13, squarings = 0;
  for (const auto& d : kDegrees)
    if (norm <= d.theta) {
      m = d.m;
      break;
    }
  if (norm > kDegrees[4].theta) {
    squarings = static_cast<int>(std::ceil(std::log2(norm / kDegrees[4].theta)));
    for (double& x : a.v) x = std::ldexp(x, -squarings);
  }
  const std::vector<double> b = pade_coefficients(m);
  // p(A) = U + V with U the odd part and V the even part; exp(A) ≈ (V - U)⁻¹ (V + U).
  const Square a2 = product(a, a);
  Square u(0), v(0);
  if (m < 13) {
    std::vector<Square> even{a2};  // A², A⁴, ...
    while (static_cast<int>(even.size()) < (m - 1) / 2) even.push_back(product(even.back(), a2));
    Square odd_sum = combine({}, b[1], n), even_sum = combine({}, b[0], n);
    for (size_t k = 0; k < even.size(); ++k) {
      for (size_t i = 0; i < odd_sum.v.size(); ++i) {
        odd_sum.v[i] += b[2 * k + 3] * even[k].v[i];
        even_sum.v[i] += b[2 * k + 2] * even[k].v[i];
      }
    }
    u = product(a, odd_sum);
    v = std::move(even_sum);
  } else {  // degree 13 in 6 products: the A⁶ terms are factored out
    const Square a4 = product(a2, a2), a6 = product(a4, a2);
    const Square u_high = combine({{b[13], &a6}, {b[11], &a4}, {b[9], &a2}}, 0, n);
    const Square v_high = combine({{b[12], &a6}, {b[10], &a4}, {b[8], &a2}}, 0, n);
    const Square u6 = product(a6, u_high), v6 = product(a6, v_high);
    const Square u_all = combine({{1, &u6}, {b[7], &a6}, {b[5], &a4}, {b[3], &a2}}, b[1], n);
    u = product(a, u_all);
    v = combine({{1, &v6}, {b[6], &a6}, {b[4], &a4}, {b[2], &a2}}, b[0], n);
  }
  Square denominator = combine({{1, &v}, {-1, &u}}, 0, n);
  Square result = combine({{1, &v}, {1, &u}}, 0, n);
  lu_solve_host(denominator, result);
  for (int i = 0; i < squarings; ++i) result = product(result, result);
  a = std::move(result);
}

}  // namespace

Tensor matrix_exp(const Tensor& A) {
  detail::check_matrix("linalg.matrix_exp", A, true);
  detail::require_cpu("linalg.matrix_exp", A);
  autograd::OpRecording rec(A);
  // float32 is computed in float64 and rounded once, at the end.
  const Tensor Ad = A.to(kDouble).contiguous();
  Tensor out = empty(A.sizes(), A.options().dtype(kDouble));
  const int64_t n = A.size(-1), count = detail::batch_count(detail::batch_shape(A));
  const double* src = Ad.data_ptr<double>();
  double* dst = out.data_ptr<double>();
  for (int64_t b = 0; b < count && n > 0; ++b) {
    Square a(static_cast<int>(n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        a(static_cast<int>(i), static_cast<int>(j)) = src[b * n * n + i * n + j];
    expm(a);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        dst[b * n * n + i * n + j] = a(static_cast<int>(i), static_cast<int>(j));
  }
  out = out.to(A.dtype());
  if (rec) autograd::derivatives::linalg_matrix_exp(out, A);
  return out;
}

}  // namespace ember::linalg
