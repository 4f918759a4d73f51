// Shared by the LAPACK-backed ember::linalg files (linalg_decomp.cpp, linalg_lu.cpp,
// linalg_matrix_exp.cpp): input checks, batch bookkeeping, the kernel lookup, and the tensor-level
// preparation around a LAPACK slot (kernels/common/lapack_params.h): column-major copies, the
// non-finite screen, LAPACK's info. Everything here is made of ordinary tensor ops, so an op
// written with it runs on every device that registers the slots.
#pragma once

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "kernels/common/lapack_params.h"
#include "src/dispatch/dispatch.h"
#include "src/ops/op_common.h"

namespace ember::linalg::detail {

inline void check_input(const char* op, const Tensor& A, const char* name = "A") {
  check_defined(A, op, name);
  EMBER_CHECK_TYPE(A.dtype() == kFloat || A.dtype() == kDouble,
                   "{}: expected a float32 or float64 tensor, but got {}. Hint: convert with "
                   ".to(ember::kFloat)",
                   op, A.dtype());
}

/// For the ops that still compute on the host (matrix_exp).
inline void require_cpu(const char* op, const Tensor& A) {
  EMBER_CHECK_AS(NotImplementedError, A.is_cpu(),
                 "{}: only CPU tensors are supported, got a tensor on {}. Hint: move it with "
                 ".cpu()",
                 op, A.device());
}

// LAPACK counts rows and columns in 32-bit ints (OpenBLAS's LP64 build, cuSOLVER's legacy API).
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

/// The kernel of LAPACK slot `id` for A's device and dtype. A device without one is a
/// NotImplementedError naming the op the user called (A's dtype is float32/float64 already).
template <OpId id>
KernelFn<id> lapack_kernel(const char* op, const Tensor& A) {
  EMBER_CHECK_AS(NotImplementedError, supports(id, A.device().type(), A.dtype()),
                 "{}: not implemented for tensors on {} (no {} kernel). Hint: move it with .cpu()",
                 op, A.device(), op_name(id));
  return get_kernel<id>(A.device().type(), A.dtype());
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

// ---- Column-major layout (kernels/common/lapack_params.h) ----
//
// On the CPU these run as plain loops on the calling thread, elsewhere as tensor ops. The copies
// sit right before and after OpenBLAS's LAPACK, whose pthreads (before OpenBLAS was pinned to its
// calling thread, kernels/cpu/blas_core.cpp) busy-waited for a while after each call, as OpenMP's
// do after each of Ember's parallel loops: interleaving the two pools made
// cholesky of a 256 x 256 float64 matrix take 9-78 ms instead of 1.1 ms on the 2-core VM while
// other builds ran (each pool's spinning threads hold the cores the other's work waits for;
// 0.6 ms with OMP_WAIT_POLICY=passive). The copies are O(n²) against LAPACK's O(n³), so one
// thread loses nothing.

/// A fresh contiguous copy of `src` (any strides: an expanded or transposed view).
Tensor packed_copy(const Tensor& src);

/// `count` n x n identity matrices, (count, n, n) contiguous (the same read either way round):
/// the right-hand side inv solves for.
Tensor identity_batch(int64_t count, int64_t n, const TensorOptions& options);

/// A fresh (count, max(n, width), m) tensor whose entry b holds matrix b of the (count, m, n)
/// tensor A in column-major order (ld m): a row-major tensor read as column-major is its
/// transpose. Columns past n (width > n: room for qr's complete Q) are zero.
Tensor column_major(const Tensor& A, int64_t width = 0);

/// The LAPACK operand over a (count, W, rows) tensor of column-major matrices: rows x cols each
/// (cols <= W; default W), ld rows.
LapackMatrices matrices_of(const Tensor& cm, int64_t cols = -1);

/// The top-left rows x cols block of each column-major matrix in the (count, W, R) tensor `cm`,
/// as a contiguous row-major (count, rows, cols) tensor; `uplo` 'U' keeps only the upper triangle
/// (zeros below the diagonal), 'L' only the lower one, 'A' everything.
Tensor from_column_major(const Tensor& cm, int64_t rows, int64_t cols, char uplo = 'A');

// ---- The non-finite screen ----

/// Which entries of a batch hold only finite values. No LAPACK routine is handed a matrix with a
/// NaN or an inf (gesdd never returns on some): the op replaces such entries by the identity
/// before the call (keep_finite) and answers for them itself (an Error, or NaN: with_nan).
struct FiniteMask {
  std::vector<uint8_t> ok;  // host, one per batch entry
  Tensor mask;              // the same as a bool tensor on the device; undefined when all are ok

  bool all() const { return !mask.defined(); }
  bool operator[](int64_t b) const { return ok[static_cast<size_t>(b)] != 0; }
};

/// Per matrix of the (count, r, c) tensor t: whether its values are finite, all of them ('A'),
/// or those of its lower ('L': column <= row) or upper ('U') triangle, what LAPACK reads there.
FiniteMask finite_mask(const Tensor& t, char uplo = 'A');

/// The mask for host flags `ok` (one per batch entry), on `device`.
FiniteMask finite_mask_from(std::vector<uint8_t> ok, Device device);

/// t (count, r, c) with every entry that is not ok replaced by the r x c identity (t itself when
/// all are).
Tensor keep_finite(const FiniteMask& f, const Tensor& t);

/// t (count, ...) with every entry that is not ok set to NaN.
Tensor with_nan(const FiniteMask& f, const Tensor& t);

// ---- LAPACK's info ----

/// A buffer for a kernel's info, one per batch entry (LapackCall::info).
inline std::vector<int32_t> info_buffer(int64_t count) {
  return std::vector<int32_t>(static_cast<size_t>(count), 0);
}

/// LAPACK's info < 0 means an argument was wrong: a bug here, not bad input.
void check_lapack_call(const char* op, const char* routine, const std::vector<int32_t>& info);

/// The info of linalg.*_ex: an int32 tensor of shape `batch` on `device`.
Tensor info_tensor(const std::vector<int32_t>& info, IntArrayRef batch, Device device);

}  // namespace ember::linalg::detail
