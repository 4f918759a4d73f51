// ember::linalg::vector_norm and matrix_norm on the CPU. The reduced dims are moved last and made
// contiguous, so each norm is a loop over dense rows (vector) or dense matrices (matrix). The 2 and
// nuclear norms take their singular values from svdvals (linalg_decomp.cpp, LAPACK's gesdd).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/op_common.h"

namespace ember::linalg {
namespace {

// Wraps `dims` (all dims when empty) and checks they are distinct.
DimVector reduce_dims(const char* op, const Tensor& x, IntArrayRef dims) {
  DimVector out;
  if (dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, x.dim(), op);
    for (int64_t o : out)
      EMBER_CHECK(o != w, "{}: dim {} appears multiple times in the list of dims {}", op, w, dims);
    out.push_back(w);
  }
  return out;
}

// x with `dims` moved last (in the given order), contiguous; `kept` receives the other dims.
Tensor dims_last(const Tensor& x, const DimVector& dims, DimVector* kept) {
  DimVector perm;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      perm.push_back(d);
      kept->push_back(d);
    }
  for (int64_t d : dims) perm.push_back(d);
  return x.dim() == 0 ? x.contiguous() : x.permute(perm).contiguous();
}

// Result shape: the kept dims, with 1s in the reduced places when keepdim.
DimVector result_shape(const Tensor& x, const DimVector& dims, bool keepdim) {
  DimVector s;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced)
      s.push_back(x.size(d));
    else if (keepdim)
      s.push_back(1);
  }
  return s;
}

std::string ord_str(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  return fmt::format("{}", ord);
}

template <class T>
double vector_norm_row(const T* x, int64_t n, double ord) {
  if (ord == 2) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += double(x[i]) * double(x[i]);
    return std::sqrt(s);
  }
  if (ord == 1) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::abs(double(x[i]));
    return s;
  }
  if (std::isinf(ord)) {
    double r = ord > 0 ? 0 : std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      const double a = std::abs(double(x[i]));
      if (std::isnan(a)) return a;
      r = ord > 0 ? std::max(r, a) : std::min(r, a);
    }
    return r;
  }
  if (ord == 0) {
    double c = 0;
    for (int64_t i = 0; i < n; ++i) c += double(x[i]) != 0;
    return c;
  }
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += std::pow(std::abs(double(x[i])), ord);
  return std::pow(s, 1.0 / ord);
}

}  // namespace

namespace {
// `dtype` casts the input first (as PyTorch: the cast is part of the recorded graph).
Tensor cast_for_norm(const char* op, const Tensor& x, std::optional<ScalarType> dtype) {
  check_defined(x, op, "x");
  if (!dtype) return x;
  EMBER_CHECK_TYPE(is_floating_point(*dtype),
                   "{}: dtype should be a floating point type, but got {}", op, *dtype);
  EMBER_CHECK_TYPE(x.is_floating_point(),
                   "{}: expected a floating point tensor as input, but got {}. Hint: convert "
                   "with .to(ember::kFloat)",
                   op, x.dtype());
  return x.to(*dtype);
}
}  // namespace

Tensor vector_norm(const Tensor& x_in, const Scalar& ord_in, OptionalIntArrayRef dim_in,
                   bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "linalg.vector_norm";
  const Tensor x = cast_for_norm(op, x_in, dtype);
  const double ord = ord_in.toDouble();
  const IntArrayRef dim = dim_in ? *dim_in : IntArrayRef();
  EMBER_CHECK_AS(
      NotImplementedError, x.is_cpu(),
      "{}: only CPU tensors are supported, got a tensor on {}. Hint: move it with .cpu()", op,
      x.device());
  EMBER_CHECK_TYPE(is_floating_point(x.dtype()),
                   "{}: expected a floating point tensor as input, but got {}. Hint: convert with "
                   ".to(ember::kFloat)",
                   op, x.dtype());
  const DimVector dims = reduce_dims(op, x, dim);
  autograd::OpRecording rec(x);
  DimVector kept;
  // float16/bfloat16 are reduced in float32, as PyTorch accumulates them.
  const ScalarType compute = x.dtype() == kDouble ? kDouble : kFloat;
  const Tensor xc = dims_last(cast_to(x, compute), dims, &kept);
  int64_t inner = 1;
  for (int64_t d : dims) inner *= x.size(d);
  EMBER_CHECK(inner > 0 || !std::isinf(ord),
              "{}: cannot compute the {} norm of an empty reduction because the operation does "
              "not have an identity",
              op, ord_str(ord));
  const DimVector shape = result_shape(x, dims, keepdim);
  Tensor out = empty(shape, x.options().dtype(compute));
  const int64_t rows = out.numel();
  if (compute == kDouble) {
    const double* src = xc.data_ptr<double>();
    double* dst = out.data_ptr<double>();
    for (int64_t r = 0; r < rows; ++r) dst[r] = vector_norm_row(src + r * inner, inner, ord);
  } else {
    const float* src = xc.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t r = 0; r < rows; ++r)
      dst[r] = static_cast<float>(vector_norm_row(src + r * inner, inner, ord));
  }
  out = cast_to(out, x.dtype());
  if (rec) autograd::derivatives::linalg_vector_norm(out, x, ord, dims, keepdim);
  return out;
}

namespace {
Tensor matrix_norm_impl(const Tensor& A, const std::string& ord, double num, IntArrayRef dim,
                        bool keepdim) {
  const char* op = "linalg.matrix_norm";
  check_defined(A, op, "A");
  EMBER_CHECK_AS(
      NotImplementedError, A.is_cpu(),
      "{}: only CPU tensors are supported, got a tensor on {}. Hint: move it with .cpu()", op,
      A.device());
  EMBER_CHECK_TYPE(A.dtype() == kFloat || A.dtype() == kDouble,
                   "{}: expected a float32 or float64 tensor, but got {}", op, A.dtype());
  EMBER_CHECK(A.dim() >= 2, "{}: A must have at least 2 dimensions, but got a {}-D tensor", op,
              A.dim());
  EMBER_CHECK(dim.size() == 2, "{}: dim must be a 2-tuple, but got {}", op, dim);
  const DimVector dims = reduce_dims(op, A, dim);
  autograd::OpRecording rec(A);
  DimVector kept;
  const Tensor Ac = dims_last(A, dims, &kept);
  const int64_t m = A.size(dims[0]), n = A.size(dims[1]);
  Tensor out = empty(result_shape(A, dims, keepdim), A.options());
  const int64_t count = out.numel();
  const bool by_svd = ord == "nuc" || std::abs(num) == 2;
  Tensor sv;  // [count, min(m, n)] singular values, for the 2 and nuclear norms
  if (by_svd && m > 0 && n > 0) {
    NoGradGuard no_grad;  // the norm's own derivative is recorded below
    sv = svdvals(Ac.reshape({count, m, n})).contiguous();
  }
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* src = Ac.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    std::vector<T> sums;
    for (int64_t b = 0; b < count; ++b) {
      const T* a = src + b * m * n;  // row-major m x n
      T r = 0;
      if (ord == "fro") {
        for (int64_t i = 0; i < m * n; ++i) r += a[i] * a[i];
        r = std::sqrt(r);
      } else if (by_svd) {
        if (m > 0 && n > 0) {
          const int64_t k = std::min(m, n);
          const T* s = sv.data_ptr<T>() + b * k;  // descending
          if (ord == "nuc") {
            for (int64_t i = 0; i < k; ++i) r += s[i];
          } else {
            r = num > 0 ? s[0] : s[k - 1];
          }
        }
      } else {
        // 1: largest column sum of |a|; inf: largest row sum (negative: the smallest).
        const bool cols = std::abs(num) == 1;
        sums.assign(static_cast<size_t>(cols ? n : m), T(0));
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            sums[static_cast<size_t>(cols ? j : i)] += std::abs(a[i * n + j]);
        EMBER_CHECK(!sums.empty(), "{}: cannot compute the {} norm of an empty matrix", op,
                    ord_str(num));
        r = num > 0 ? *std::max_element(sums.begin(), sums.end())
                    : *std::min_element(sums.begin(), sums.end());
      }
      dst[b] = r;
    }
  };
  if (A.dtype() == kDouble)
    run(double{});
  else
    run(float{});
  if (rec) autograd::derivatives::linalg_matrix_norm(out, A, ord, num, dims, keepdim);
  return out;
}
}  // namespace

Tensor matrix_norm(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_CHECK_VALUE(ord == "fro" || ord == "nuc",
                    "linalg.matrix_norm: Order {} not supported. Hint: use \"fro\", \"nuc\", or a "
                    "number (1, -1, 2, -2, inf, -inf)",
                    ord);
  return matrix_norm_impl(cast_for_norm("linalg.matrix_norm", A, dtype), std::string(ord), 0, dim,
                          keepdim);
}

Tensor matrix_norm(const Tensor& A, const Scalar& ord_in, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const double ord = ord_in.toDouble();
  EMBER_CHECK_VALUE(std::abs(ord) == 1 || std::abs(ord) == 2 || std::isinf(ord),
                    "linalg.matrix_norm: Order {} not supported. Hint: use \"fro\", \"nuc\", or a "
                    "number (1, -1, 2, -2, inf, -inf)",
                    ord_str(ord));
  return matrix_norm_impl(cast_for_norm("linalg.matrix_norm", A, dtype), "", ord, dim, keepdim);
}

}  // namespace ember::linalg
