// The CUDA `mm`/`bmm` slot: cuBLAS GEMMs (cublasGemmEx / cublasGemmStridedBatchedEx) with the
// per-device handle cache. Row-major operands map onto cuBLAS's column-major API by the transpose
// trick: C = A·B row-major is Cᵀ = Bᵀ·Aᵀ column-major, so B goes first and nothing moves; an
// operand with unit row stride (a transposed view) becomes CUBLAS_OP_T instead of a copy.
// float32/float64 compute exactly in their type (no TF32, as PyTorch's default); float16 and
// bfloat16 accumulate in float32.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <vector>

#include "ember/core/storage.h"
#include "kernels/common/elementwise_loop.h"
#include "kernels/common/gemm_params.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/handle_pool.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {
namespace {

/// EMBER_CUBLAS_CHECK(cublasGemmEx(...)): throws an ember::Error naming the call.
#define EMBER_CUBLAS_CHECK(call)                                              \
  do {                                                                        \
    cublasStatus_t ember_cublas_status_ = (call);                             \
    if (ember_cublas_status_ != CUBLAS_STATUS_SUCCESS)                        \
      EMBER_FAIL("cuBLAS error: {} failed: {} ({}) at {}:{}", #call,          \
                 cublasGetStatusString(ember_cublas_status_),                 \
                 static_cast<int>(ember_cublas_status_), __FILE__, __LINE__); \
  } while (0)

cublasHandle_t handle_for_current_device() {
  cublasHandle_t h = thread_handle<cublasHandle_t>(
      current_device(), [](cublasHandle_t* out) { EMBER_CUBLAS_CHECK(cublasCreate(out)); });
  EMBER_CUBLAS_CHECK(cublasSetStream(h, current_stream()));
  return h;
}

// How a row-major-indexed R×C operand with strides (sr, sc) is seen by cuBLAS: its transpose as
// a column-major C×R matrix, either directly (op N: unit column stride, ld = sr >= C) or as the
// transpose of a column-major R×C matrix (op T: unit row stride, ld = sc >= R). The stride of a
// size-1 dim is free. Anything else (broadcast rows, two non-unit strides) gets packed.
struct CublasView {
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
  bool ok = false;
};
CublasView view_of(int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  const int64_t r1 = std::max<int64_t>(rows, 1), c1 = std::max<int64_t>(cols, 1);
  if (cols == 1 || sc == 1) {
    const int64_t ld = rows == 1 ? c1 : sr;
    if (ld >= c1) return {CUBLAS_OP_N, ld, true};
  }
  if (rows == 1 || sr == 1) {
    const int64_t ld = cols == 1 ? r1 : sc;
    if (ld >= r1) return {CUBLAS_OP_T, ld, true};
  }
  return {};
}

struct GemmTypes {
  cudaDataType data;
  cublasComputeType_t compute;
  bool double_scalars;
};
GemmTypes gemm_types(ScalarType t) {
  switch (t) {
    case kFloat:
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F, false};
    case kDouble:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
    case kHalf:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
    default:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};  // the slot admits only these four
  }
}

using ElementwiseKernel = void (*)(const ElementwiseLoop&);

// A [batch, rows, cols] matrix operand as an elementwise-loop operand (innermost dim first).
struct Matrix {
  char* data;
  int64_t bs, rs, cs;  // element strides
};
ElementwiseLoop matrix_loop(ScalarType dtype, int64_t batch, int64_t rows, int64_t cols,
                            std::initializer_list<Matrix> operands) {
  ElementwiseLoop L;
  const int64_t item = element_size(dtype);
  L.noperands = static_cast<int>(operands.size());
  L.numel = batch * rows * cols;
  L.dtype = L.out_dtype = dtype;
  L.ndim = 3;
  L.sizes[0] = cols;
  L.sizes[1] = rows;
  L.sizes[2] = batch;
  int k = 0;
  for (const Matrix& m : operands) {
    L.data[k] = m.data;
    L.strides[k][0] = m.cs * item;
    L.strides[k][1] = m.rs * item;
    L.strides[k][2] = m.bs * item;
    ++k;
  }
  L.contiguous = false;
  return L;
}

// A device buffer from the caching allocator, returned when the scope ends (stream order keeps
// it alive for the kernels queued before that).
class Workspace {
 public:
  explicit Workspace(size_t nbytes) : p_(get_allocator(kCUDA)->allocate(nbytes)) {}
  ~Workspace() {
    if (p_.deleter) p_.deleter(p_.ptr, p_.ctx);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  char* data() const { return static_cast<char*>(p_.ptr); }

 private:
  DataPtr p_;
};

// Copies a strided operand into a dense [batch, rows, cols] buffer with the cast kernel, for the
// layouts cuBLAS cannot read (broadcast rows, both strides > 1).
void pack(ScalarType dtype, int64_t batch, int64_t rows, int64_t cols, Matrix src, char* dst) {
  auto copy = get_kernel<ElementwiseKernel>(OpId::cast, kCUDA, dtype);
  copy(matrix_loop(dtype, batch, rows, cols, {{dst, rows * cols, cols, 1}, src}));
}

// k == 0: C = beta·C, which is all zeros when beta == 0 (C is write-only then, NaN included).
void scale_output(ScalarType dtype, const GemmParams& p) {
  Matrix c{static_cast<char*>(p.c), p.c_bs, p.c_rs, p.c_cs};
  const double beta = p.beta.toDouble();
  if (beta == 0) {
    ElementwiseLoop L = matrix_loop(dtype, p.batch, p.m, p.n, {c});
    get_kernel<ElementwiseKernel>(OpId::fill, kCUDA, dtype)(L);
    return;
  }
  // beta as a one-element device buffer, broadcast over C by a zero stride.
  Workspace scalar(static_cast<size_t>(element_size(dtype)));
  ElementwiseLoop fill = matrix_loop(dtype, 1, 1, 1, {{scalar.data(), 0, 0, 0}});
  fill.scalars.s[0] = beta;
  get_kernel<ElementwiseKernel>(OpId::fill, kCUDA, dtype)(fill);
  get_kernel<ElementwiseKernel>(OpId::mul, kCUDA, dtype)(
      matrix_loop(dtype, p.batch, p.m, p.n, {c, c, {scalar.data(), 0, 0, 0}}));
}

void run_cublas(ScalarType dtype, const GemmParams& p, const CublasView& va, const CublasView& vb,
                const CublasView& vc) {
  const GemmTypes types = gemm_types(dtype);
  cublasHandle_t h = handle_for_current_device();
  const double alpha = p.alpha.toDouble(), beta = p.beta.toDouble();
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* pa = types.double_scalars ? static_cast<const void*>(&alpha) : &alpha_f;
  const void* pb = types.double_scalars ? static_cast<const void*>(&beta) : &beta_f;
  // Column-major view: C_cm (n×m) = op(B_cm) (n×k) · op(A_cm) (k×m).
#if CUBLAS_VER_MAJOR >= 12
  if (p.batch == 1) {
    EMBER_CUBLAS_CHECK(cublasGemmEx_64(h, vb.op, va.op, p.n, p.m, p.k, pa, p.b, types.data, vb.ld,
                                       p.a, types.data, va.ld, pb, p.c, types.data, vc.ld,
                                       types.compute, CUBLAS_GEMM_DEFAULT));
  } else {
    EMBER_CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(
        h, vb.op, va.op, p.n, p.m, p.k, pa, p.b, types.data, vb.ld, p.b_bs, p.a, types.data, va.ld,
        p.a_bs, pb, p.c, types.data, vc.ld, p.c_bs, p.batch, types.compute, CUBLAS_GEMM_DEFAULT));
  }
#else
  constexpr int64_t kIntMax = 2147483647;
  EMBER_CHECK(std::max({p.n, p.m, p.k, vb.ld, va.ld, vc.ld, p.batch}) <= kIntMax,
              "mm: sizes beyond 2^31 need cuBLAS 12 or newer, got m={}, n={}, k={}", p.m, p.n, p.k);
  if (p.batch == 1) {
    EMBER_CUBLAS_CHECK(cublasGemmEx(h, vb.op, va.op, int(p.n), int(p.m), int(p.k), pa, p.b,
                                    types.data, int(vb.ld), p.a, types.data, int(va.ld), pb, p.c,
                                    types.data, int(vc.ld), types.compute, CUBLAS_GEMM_DEFAULT));
  } else {
    EMBER_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        h, vb.op, va.op, int(p.n), int(p.m), int(p.k), pa, p.b, types.data, int(vb.ld), p.b_bs, p.a,
        types.data, int(va.ld), p.a_bs, pb, p.c, types.data, int(vc.ld), p.c_bs, int(p.batch),
        types.compute, CUBLAS_GEMM_DEFAULT));
  }
#endif
}

// The `mm`/`bmm` slot (kernels/common/gemm_params.h): any strides in, cuBLAS on the layouts it
// reads directly, dense copies for the rest.
void cuda_gemm(ScalarType dtype, const GemmParams& params) {
  if (params.batch == 0 || params.m == 0 || params.n == 0) return;
  if (params.k == 0) {
    scale_output(dtype, params);
    return;
  }
  GemmParams p = params;
  const int64_t item = element_size(dtype);
  std::optional<Workspace> a_buf, b_buf, c_buf;
  CublasView va = view_of(p.m, p.k, p.a_rs, p.a_cs);
  if (!va.ok) {
    a_buf.emplace(static_cast<size_t>(p.batch * p.m * p.k * item));
    pack(dtype, p.batch, p.m, p.k,
         {static_cast<char*>(const_cast<void*>(p.a)), p.a_bs, p.a_rs, p.a_cs}, a_buf->data());
    p.a = a_buf->data();
    p.a_bs = p.m * p.k, p.a_rs = p.k, p.a_cs = 1;
    va = view_of(p.m, p.k, p.a_rs, p.a_cs);
  }
  CublasView vb = view_of(p.k, p.n, p.b_rs, p.b_cs);
  if (!vb.ok) {
    b_buf.emplace(static_cast<size_t>(p.batch * p.k * p.n * item));
    pack(dtype, p.batch, p.k, p.n,
         {static_cast<char*>(const_cast<void*>(p.b)), p.b_bs, p.b_rs, p.b_cs}, b_buf->data());
    p.b = b_buf->data();
    p.b_bs = p.k * p.n, p.b_rs = p.n, p.b_cs = 1;
    vb = view_of(p.k, p.n, p.b_rs, p.b_cs);
  }
  CublasView vc = view_of(p.m, p.n, p.c_rs, p.c_cs);
  const bool c_direct = vc.ok && vc.op == CUBLAS_OP_N && (p.batch == 1 || p.c_bs != 0);
  if (c_direct) {
    run_cublas(dtype, p, va, vb, vc);
    return;
  }
  // C in a layout cuBLAS cannot write: compute into a dense buffer, then scatter.
  const Matrix c_user{static_cast<char*>(params.c), params.c_bs, params.c_rs, params.c_cs};
  c_buf.emplace(static_cast<size_t>(p.batch * p.m * p.n * item));
  const Matrix c_dense{c_buf->data(), p.m * p.n, p.n, 1};
  if (p.beta.toDouble() != 0) pack(dtype, p.batch, p.m, p.n, c_user, c_dense.data);
  p.c = c_dense.data;
  p.c_bs = c_dense.bs, p.c_rs = c_dense.rs, p.c_cs = 1;
  vc = view_of(p.m, p.n, p.c_rs, p.c_cs);
  run_cublas(dtype, p, va, vb, vc);
  get_kernel<ElementwiseKernel>(OpId::cast, kCUDA,
                                dtype)(matrix_loop(dtype, p.batch, p.m, p.n, {c_user, c_dense}));
}

}  // namespace

void register_cuda_blas_kernels() {
  // cuBLAS has no integer GEMM with PyTorch's semantics; like PyTorch, CUDA mm/bmm take the
  // floating dtypes only (an integer mm on CUDA is a TypeError naming the dtype).
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::mm>(kCUDA, &cuda_gemm, dtypes);
  register_kernel<OpId::bmm>(kCUDA, &cuda_gemm, dtypes);
}

}  // namespace ember::cuda_detail
