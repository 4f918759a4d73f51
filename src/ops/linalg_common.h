// Shared by the LAPACK-backed ember::linalg files (linalg_decomp.cpp, linalg_lu.cpp,
// linalg_matrix_exp.cpp): input checks, batch bookkeeping, and the column-major buffers that
// Ember's row-major matrices are copied into for LAPACK.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/core/tensor.h"
#include "src/ops/op_common.h"

namespace ember::linalg::detail {

inline void check_input(const char* op, const Tensor& A, const char* name = "A") {
  check_defined(A, op, name);
  EMBER_CHECK_AS(NotImplementedError, A.is_cpu(),
                 "{}: only CPU tensors are supported, got a tensor on {}. Hint: move it with "
                 ".cpu()",
                 op, A.device());
  EMBER_CHECK_TYPE(A.dtype() == kFloat || A.dtype() == kDouble,
                   "{}: expected a float32 or float64 tensor, but got {}. Hint: convert with "
                   ".to(ember::kFloat)",
                   op, A.dtype());
}

// LAPACK counts rows and columns in 32-bit ints (OpenBLAS's LP64 build).
inline void check_lapack_size(const char* op, const Tensor& A, const char* name) {
  for (int64_t d = std::max<int64_t>(A.dim() - 2, 0); d < A.dim(); ++d)
    EMBER_CHECK(A.size(d) <= INT_MAX,
                "{}: {} has {} rows or columns, but LAPACK takes at most {} (shape {})", op, name,
                A.size(d), INT_MAX, A.sizes());
}

inline void check_matrix(const char* op, const Tensor& A, bool square, const char* name = "A") {
  check_input(op, A, name);
  EMBER_CHECK(A.dim() >= 2,
              "{}: {} must have at least 2 dimensions, but got a {}-D tensor of shape {}", op, name,
              A.dim(), A.sizes());
  if (square)
    EMBER_CHECK(A.size(-1) == A.size(-2),
                "{}: {} must be batches of square matrices, but they are {} by {} matrices", op,
                name, A.size(-2), A.size(-1));
  check_lapack_size(op, A, name);
}

inline DimVector batch_shape(const Tensor& A) { return DimVector(A.sizes().slice(0, A.dim() - 2)); }

inline int64_t batch_count(IntArrayRef batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

inline DimVector with_matrix(IntArrayRef batch, std::initializer_list<int64_t> tail) {
  DimVector s(batch);
  for (int64_t t : tail) s.push_back(t);
  return s;
}

// "(Batch element 3): " for batched inputs, as PyTorch prefixes its linalg errors.
inline std::string batch_prefix(int64_t b, bool batched) {
  return batched ? "(Batch element " + std::to_string(b) + "): " : "";
}

// Runs f(TypeTag) for float or double.
template <class F>
void visit_float(ScalarType t, F&& f) {
  if (t == kDouble)
    f(double{});
  else
    f(float{});
}

// A column-major matrix buffer of `rows` x `cols` (leading dimension `ld` >= 1), what LAPACK
// reads and writes.
template <class T>
struct ColMajor {
  ColMajor(int64_t r, int64_t c)
      : rows(static_cast<int>(r)),
        cols(static_cast<int>(c)),
        ld(static_cast<int>(std::max<int64_t>(r, 1))),
        data(static_cast<size_t>(ld) * static_cast<size_t>(std::max(cols, 1))) {}
  T& operator()(int64_t i, int64_t j) { return data[static_cast<size_t>(i + j * ld)]; }
  T operator()(int64_t i, int64_t j) const { return data[static_cast<size_t>(i + j * ld)]; }
  T* ptr() { return data.data(); }

  int rows, cols, ld;
  std::vector<T> data;
};

// Copies the row-major rows x cols matrix at `src` into the top-left corner of `dst`.
template <class T>
void load(const T* src, int64_t rows, int64_t cols, ColMajor<T>& dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst(i, j) = src[i * cols + j];
}

// Writes the top-left rows x cols block of `src` into matrix b of the contiguous (*, rows, cols)
// tensor `out`.
template <class T>
void store(const ColMajor<T>& src, const Tensor& out, int64_t b) {
  const int64_t rows = out.size(-2), cols = out.size(-1);
  T* dst = out.data_ptr<T>() + b * rows * cols;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src(i, j);
}

// Sets matrix b of the contiguous (*, r, c) tensor `out` to the identity.
template <class T>
void store_identity(const Tensor& out, int64_t b) {
  const int64_t rows = out.size(-2), cols = out.size(-1);
  T* dst = out.data_ptr<T>() + b * rows * cols;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = T(i == j);
}

// Whether the top-left rows x cols block of `a` is finite; with uplo 'L' or 'U' only that
// triangle (all LAPACK reads there). Checked before every LAPACK driver call: the iterative drivers
// never return on some non-finite inputs (gesdd loops forever on an inf), and the direct ones only
// spread NaN, so no driver is handed such a matrix.
template <class T>
bool finite_block(const ColMajor<T>& a, int64_t rows, int64_t cols, char uplo = 'A') {
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) {
      if ((uplo == 'L' && i < j) || (uplo == 'U' && i > j)) continue;
      if (!std::isfinite(a(i, j))) return false;
    }
  return true;
}

// The order of the first leading minor of the uplo triangle that holds a non-finite value (0 when
// all are finite): what potrf reports as not positive-definite for such input.
template <class T>
int first_nonfinite_minor(const ColMajor<T>& a, int64_t n, char uplo) {
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i <= k; ++i) {
      // Row/column k of the minor of order k + 1, inside the uplo triangle.
      const T x = uplo == 'L' ? a(k, i) : a(i, k);
      if (!std::isfinite(x)) return static_cast<int>(k + 1);
    }
  return 0;
}

// Sets matrix b of the contiguous (*, rows, cols) tensor `out` to NaN: the answer for a matrix
// with non-finite entries where PyTorch's is NaN as well (LAPACK would spread the NaN).
template <class T>
void store_nan(const Tensor& out, int64_t b) {
  const int64_t size = out.size(-2) * out.size(-1);
  T* dst = out.data_ptr<T>() + b * size;
  std::fill(dst, dst + size, std::numeric_limits<T>::quiet_NaN());
}

// Calls f(b, matrix b in a column-major buffer) for each matrix of a contiguous (*, m, n) tensor.
// One buffer serves the whole batch (each load overwrites the m x n block f reads); `cols` widens
// it (qr's complete Q needs m columns for an m x n input; orgqr sets the extra ones itself).
template <class T, class F>
void for_each_matrix(const Tensor& Ac, F&& f, int64_t cols = -1) {
  const int64_t m = Ac.size(-2), n = Ac.size(-1), count = batch_count(batch_shape(Ac));
  const T* data = Ac.data_ptr<T>();
  ColMajor<T> a(m, std::max(n, cols));
  for (int64_t b = 0; b < count; ++b) {
    load(data + b * m * n, m, n, a);
    f(b, a);
  }
}

// The workspace to pass LAPACK: the optimal size from an lwork = -1 query, never below the
// routine's documented minimum (computed here in 64 bits). LP64 LAPACK counts workspaces in 32-bit
// ints, and past INT_MAX its own size arithmetic wraps (a wrapped query looks small, and the
// routine then writes past the buffer), so a matrix whose workspace may not fit is an Error.
// `headroom` covers the blocked algorithms' extra (panel widths x dims) above the minimum.
// A float query is bumped one ulp first: ssyevd returns its exact minimum, and above 2^24 the
// float rounds it down.
template <class T>
std::optional<int> lapack_workspace(T query, int64_t minimum, int64_t headroom = 0) {
  if (minimum + headroom > INT_MAX) return std::nullopt;
  // float queries only: a double holds every int exactly.
  const T bumped =
      std::is_same_v<T, float> ? std::nextafter(query, std::numeric_limits<T>::infinity()) : query;
  const double optimal = std::ceil(static_cast<double>(bumped));
  return static_cast<int>(std::max<int64_t>(
      std::max<int64_t>(minimum, 1),
      optimal <= static_cast<double>(INT_MAX) ? static_cast<int64_t>(optimal) : INT_MAX));
}

template <class T>
int workspace_size(const char* op, T query, int64_t minimum, int64_t headroom = 0) {
  const std::optional<int> size = lapack_workspace(query, minimum, headroom);
  EMBER_CHECK(size.has_value(),
              "{}: the matrix is too large for LAPACK: it needs a workspace of at least {} "
              "elements, and LAPACK (32-bit integers) takes at most {}",
              op, minimum, INT_MAX);
  return *size;
}

// LAPACK's info < 0 means an argument was wrong: a bug here, not bad input.
inline void check_lapack_call(const char* op, const char* routine, int info) {
  EMBER_CHECK(info >= 0, "{}: LAPACK's {} rejected argument {} (an Ember bug, please report it)",
              op, routine, -info);
}

}  // namespace ember::linalg::detail
