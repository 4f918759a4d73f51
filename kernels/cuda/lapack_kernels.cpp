// The CUDA kernels of the LAPACK slots (kernels/common/lapack_params.h): cuSOLVER's dense routines
// (getrf/getrs, potrf, geqrf/orgqr, gesvd, syevd), float32 and float64, one call per batch entry
// on the current stream, with a cuSOLVER handle per (thread, device) as the cuBLAS handles of
// blas_kernels.cpp.
//
// Each kernel sizes one workspace with the routine's _bufferSize query (every entry has the same
// shape), gives every call its own int of a device-side info array, and at the end copies that
// array into the caller's host `info`, which waits for the routines: the op reads info next.
// cuSOLVER's info means what LAPACK's does (a zero pivot, a minor that is not positive-definite,
// a sweep count that did not converge), so the ops' errors are the CPU's.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>

#include "ember/core/storage.h"
#include "kernels/common/elementwise_loop.h"
#include "kernels/common/lapack_params.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/cusolver_api.h"
#include "kernels/cuda/handle_pool.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {
namespace {

const char* status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS:
      return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default:
      return "unknown cuSOLVER status";
  }
}

// Throws an ember::Error naming the op and the cuSOLVER call ("cusolverDnSgetrf") that failed.
void check_status(cusolverStatus_t status, const char* op, const char* call, char letter = 0) {
  if (EMBER_LIKELY(status == CUSOLVER_STATUS_SUCCESS)) return;
  EMBER_FAIL("{}: cuSOLVER's cusolverDn{}{} failed: {} ({})", op,
             letter ? std::string(1, letter) : std::string(), call, status_name(status),
             static_cast<int>(status));
}
template <class T>
void check(cusolverStatus_t status, const char* op, const char* routine) {
  check_status(status, op, routine, cusolver::type_letter<T>());
}

cusolverDnHandle_t handle_for_current_device(const char* op) {
  cusolverDnHandle_t h = thread_handle<cusolverDnHandle_t>(
      current_device(),
      [op](cusolverDnHandle_t* out) { check_status(cusolverDnCreate(out), op, "Create"); });
  check_status(cusolverDnSetStream(h, current_stream()), op, "SetStream");
  return h;
}

// The device that holds `data` (the operands' device), made current for the kernel's scope so
// that the handle, the stream and the workspaces are that device's.
int device_of(const void* data) {
  if (data == nullptr) return current_device();
  cudaPointerAttributes attr{};
  EMBER_CUDA_CHECK(cudaPointerGetAttributes(&attr, data));
  return attr.type == cudaMemoryTypeDevice ? attr.device : current_device();
}

// A device buffer from the caching allocator, returned when the scope ends (stream order keeps
// it alive for the work queued before that).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t nbytes)
      : p_(get_allocator(kCUDA)->allocate(std::max<size_t>(nbytes, 16))) {}
  ~DeviceBuffer() {
    if (p_.deleter) p_.deleter(p_.ptr, p_.ctx);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_.ptr);
  }

 private:
  DataPtr p_;
};

// What every kernel sets up: the operands' device, its handle, and one device int of info per
// batch entry (zeroed: an entry with nothing to compute reports 0).
class SolverScope {
 public:
  SolverScope(const LapackCall& call, const void* data, int64_t batch)
      : call_(call),
        guard_(device_of(data)),
        handle_(handle_for_current_device(call.op)),
        batch_(batch),
        info_(static_cast<size_t>(batch) * sizeof(int)) {
    EMBER_CUDA_CHECK(cudaMemsetAsync(info_.as<int>(), 0, static_cast<size_t>(batch) * sizeof(int),
                                     current_stream()));
  }
  cusolverDnHandle_t handle() const { return handle_; }
  int* info(int64_t b) const { return info_.as<int>() + b; }
  // Copies the info array to the caller's host buffer; waits for the routines queued so far.
  void finish() const {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(call_.info, info_.as<int>(),
                                     static_cast<size_t>(batch_) * sizeof(int),
                                     cudaMemcpyDeviceToHost, current_stream()));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
  }

 private:
  const LapackCall& call_;
  DeviceGuard guard_;
  cusolverDnHandle_t handle_;
  int64_t batch_;
  DeviceBuffer info_;
};

// The ops check every row and column count against INT_MAX before dispatch.
int to_int(int64_t v) { return static_cast<int>(v); }

template <class T>
DeviceBuffer workspace(int lwork) {
  return DeviceBuffer(static_cast<size_t>(std::max(lwork, 1)) * sizeof(T));
}

// dst(i, j) = src(j, i) for i < rows, j < cols of each entry: column-major matrices with leading
// dimensions and batch strides in elements, through the strided copy of the cast slot.
struct Strided {
  void* data;
  int64_t ld, batch_stride;
};
void transpose_into(ScalarType dtype, int64_t batch, int64_t rows, int64_t cols, Strided dst,
                    Strided src) {
  const int64_t item = element_size(dtype);
  ElementwiseLoop L;
  L.noperands = 2;
  L.numel = batch * rows * cols;
  L.dtype = L.out_dtype = dtype;
  L.ndim = 3;  // innermost first: i, j, batch
  L.sizes[0] = rows;
  L.sizes[1] = cols;
  L.sizes[2] = batch;
  L.data[0] = static_cast<char*>(dst.data);
  L.strides[0][0] = item;
  L.strides[0][1] = dst.ld * item;
  L.strides[0][2] = dst.batch_stride * item;
  L.data[1] = static_cast<char*>(src.data);
  L.strides[1][0] = src.ld * item;
  L.strides[1][1] = item;
  L.strides[1][2] = src.batch_stride * item;
  L.contiguous = false;
  get_kernel<kernel_kind::Elementwise>(OpId::cast, kCUDA, dtype)(L);
}

template <class T>
void lu_factor(const LuFactorParams& p) {
  const LapackMatrices& a = p.a;
  if (a.batch == 0) return;
  SolverScope scope(p, a.data, a.batch);
  const int m = to_int(a.rows), n = to_int(a.cols), lda = to_int(a.ld);
  const int64_t k = std::min(a.rows, a.cols);
  if (k > 0) {
    int lwork = 0;
    check<T>(cusolver::getrf_bufferSize(scope.handle(), m, n, a.at<T>(0), lda, &lwork), p.op,
             "getrf_bufferSize");
    const DeviceBuffer work = workspace<T>(lwork);
    for (int64_t b = 0; b < a.batch; ++b)
      check<T>(cusolver::getrf(scope.handle(), m, n, a.at<T>(b), lda, work.as<T>(),
                               p.pivots + b * k, scope.info(b)),
               p.op, "getrf");
  }
  scope.finish();
}

template <class T>
void lu_solve(const LuSolveParams& p) {
  if (p.b.batch == 0) return;
  SolverScope scope(p, p.b.data, p.b.batch);
  const int n = to_int(p.lu.rows), nrhs = to_int(p.b.cols);
  const cublasOperation_t trans = p.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (n > 0 && nrhs > 0)
    for (int64_t b = 0; b < p.b.batch; ++b)
      check<T>(cusolver::getrs(scope.handle(), trans, n, nrhs, p.lu.at<T>(b), to_int(p.lu.ld),
                               p.pivots + b * p.pivot_stride, p.b.at<T>(b), to_int(p.b.ld),
                               scope.info(b)),
               p.op, "getrs");
  scope.finish();
}

template <class T>
void cholesky(const CholeskyParams& p) {
  const LapackMatrices& a = p.a;
  if (a.batch == 0) return;
  SolverScope scope(p, a.data, a.batch);
  const int n = to_int(a.rows), lda = to_int(a.ld);
  const cublasFillMode_t uplo = p.upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  if (n > 0) {
    int lwork = 0;
    check<T>(cusolver::potrf_bufferSize(scope.handle(), uplo, n, a.at<T>(0), lda, &lwork), p.op,
             "potrf_bufferSize");
    const DeviceBuffer work = workspace<T>(lwork);
    for (int64_t b = 0; b < a.batch; ++b)
      check<T>(cusolver::potrf(scope.handle(), uplo, n, a.at<T>(b), lda, work.as<T>(), lwork,
                               scope.info(b)),
               p.op, "potrf");
  }
  scope.finish();
}

template <class T>
void geqrf(const QrFactorParams& p) {
  const LapackMatrices& a = p.a;
  if (a.batch == 0) return;
  SolverScope scope(p, a.data, a.batch);
  const int m = to_int(a.rows), n = to_int(a.cols), lda = to_int(a.ld);
  const int64_t k = std::min(a.rows, a.cols);
  if (k > 0) {
    T* tau = static_cast<T*>(p.tau);
    int lwork = 0;
    check<T>(cusolver::geqrf_bufferSize(scope.handle(), m, n, a.at<T>(0), lda, &lwork), p.op,
             "geqrf_bufferSize");
    const DeviceBuffer work = workspace<T>(lwork);
    for (int64_t b = 0; b < a.batch; ++b)
      check<T>(cusolver::geqrf(scope.handle(), m, n, a.at<T>(b), lda, tau + b * k, work.as<T>(),
                               lwork, scope.info(b)),
               p.op, "geqrf");
  }
  scope.finish();
}

template <class T>
void orgqr(const QrOrgqrParams& p) {
  const LapackMatrices& a = p.a;
  if (a.batch == 0) return;
  SolverScope scope(p, a.data, a.batch);
  const int m = to_int(a.rows), n = to_int(a.cols), k = to_int(p.k), lda = to_int(a.ld);
  if (m > 0 && n > 0) {
    const T* tau = static_cast<const T*>(p.tau);
    int lwork = 0;
    check<T>(cusolver::orgqr_bufferSize(scope.handle(), m, n, k, a.at<T>(0), lda, tau, &lwork),
             p.op, "orgqr_bufferSize");
    const DeviceBuffer work = workspace<T>(lwork);
    for (int64_t b = 0; b < a.batch; ++b)
      check<T>(cusolver::orgqr(scope.handle(), m, n, k, a.at<T>(b), lda, tau + b * p.k,
                               work.as<T>(), lwork, scope.info(b)),
               p.op, "orgqr");
  }
  scope.finish();
}

// gesvd on each rows x cols (rows >= cols) matrix g: S, U (rows x u_cols with jobu 'A'/'S') and
// Vᵀ (cols x cols), or S alone with jobu = jobvt = 'N'.
template <class T>
void gesvd_tall(const SolverScope& scope, const char* op, int64_t batch, int64_t rows, int64_t cols,
                Strided g, T* s, signed char jobu, Strided u, signed char jobvt, Strided vt) {
  const int m = to_int(rows), n = to_int(cols);
  int lwork = 0;
  check<T>(cusolver::gesvd_bufferSize<T>(scope.handle(), m, n, &lwork), op, "gesvd_bufferSize");
  const DeviceBuffer work = workspace<T>(lwork);
  // The unconverged superdiagonal when info > 0: min(m, n) - 1 reals.
  const DeviceBuffer rwork(static_cast<size_t>(std::max(n - 1, 1)) * sizeof(T));
  const bool vectors = jobu != 'N';
  for (int64_t b = 0; b < batch; ++b) {
    T* ub = vectors ? static_cast<T*>(u.data) + b * u.batch_stride : nullptr;
    T* vtb = vectors ? static_cast<T*>(vt.data) + b * vt.batch_stride : nullptr;
    check<T>(cusolver::gesvd(scope.handle(), jobu, jobvt, m, n,
                             static_cast<T*>(g.data) + b * g.batch_stride, to_int(g.ld), s + b * n,
                             ub, to_int(u.ld), vtb, to_int(vt.ld), work.as<T>(), lwork,
                             rwork.as<T>(), scope.info(b)),
             op, "gesvd");
  }
}

// cuSOLVER's gesvd takes rows >= cols only. A wide matrix is decomposed as its transpose:
// Aᵀ = U' S V'ᵀ gives A = V' S U'ᵀ, so A's U is (V'ᵀ)ᵀ and A's Vᵀ is U'ᵀ, each one transposed copy.
template <class T>
void svd(ScalarType dtype, const SvdParams& p) {
  const LapackMatrices& a = p.a;
  if (a.batch == 0) return;
  SolverScope scope(p, a.data, a.batch);
  const int64_t m = a.rows, n = a.cols;
  const signed char job = !p.compute_uv ? 'N' : p.full_matrices ? 'A' : 'S';
  T* s = static_cast<T*>(p.s);
  if (std::min(m, n) == 0) {
    // Nothing to decompose (the op answers for such shapes itself).
  } else if (m >= n) {
    // Without vectors U and Vᵀ are not referenced; their leading dimensions stay valid.
    const Strided u =
        p.compute_uv ? Strided{p.u.data, p.u.ld, p.u.batch_stride} : Strided{nullptr, m, 0};
    const Strided vt =
        p.compute_uv ? Strided{p.vt.data, p.vt.ld, p.vt.batch_stride} : Strided{nullptr, n, 0};
    gesvd_tall<T>(scope, p.op, a.batch, m, n, {a.data, a.ld, a.batch_stride}, s, job, u, job, vt);
  } else {
    // g = Aᵀ: n x m, n > m = min(m, n).
    const DeviceBuffer g(static_cast<size_t>(a.batch * n * m) * sizeof(T));
    const Strided gs{g.as<T>(), n, n * m};
    transpose_into(dtype, a.batch, n, m, gs, {a.data, a.ld, a.batch_stride});
    if (!p.compute_uv) {
      gesvd_tall<T>(scope, p.op, a.batch, n, m, gs, s, 'N', {nullptr, n, 0}, 'N', {nullptr, m, 0});
    } else {
      // U' is n x vt_rows (A's Vᵀ has vt_rows = n or m rows), V'ᵀ is m x m (A's U is m x m).
      const int64_t vt_rows = p.vt.rows;
      const DeviceBuffer ub(static_cast<size_t>(a.batch * n * vt_rows) * sizeof(T));
      const DeviceBuffer vtb(static_cast<size_t>(a.batch * m * m) * sizeof(T));
      const Strided us{ub.as<T>(), n, n * vt_rows}, vts{vtb.as<T>(), m, m * m};
      gesvd_tall<T>(scope, p.op, a.batch, n, m, gs, s, job, us, job, vts);
      transpose_into(dtype, a.batch, m, m, {p.u.data, p.u.ld, p.u.batch_stride}, vts);  // U
      transpose_into(dtype, a.batch, vt_rows, n, {p.vt.data, p.vt.ld, p.vt.batch_stride},
                     us);  // Vᵀ
    }
    scope.finish();  // waits for the work that reads the temporaries, then they go back
    return;
  }
  scope.finish();
}

template <class T>
void eigh(const EighParams& p) {
  const LapackMatrices& a = p.a;
  if (a.batch == 0) return;
  SolverScope scope(p, a.data, a.batch);
  const int n = to_int(a.rows), lda = to_int(a.ld);
  const cusolverEigMode_t jobz = p.vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = p.upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  if (n > 0) {
    T* w = static_cast<T*>(p.w);
    int lwork = 0;
    check<T>(cusolver::syevd_bufferSize(scope.handle(), jobz, uplo, n, a.at<T>(0), lda, w, &lwork),
             p.op, "syevd_bufferSize");
    const DeviceBuffer work = workspace<T>(lwork);
    for (int64_t b = 0; b < a.batch; ++b)
      check<T>(cusolver::syevd(scope.handle(), jobz, uplo, n, a.at<T>(b), lda, w + b * n,
                               work.as<T>(), lwork, scope.info(b)),
               p.op, "syevd");
  }
  scope.finish();
}

void cuda_lu_factor(ScalarType dtype, const LuFactorParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { lu_factor<decltype(tag)>(p); });
}
void cuda_lu_solve(ScalarType dtype, const LuSolveParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { lu_solve<decltype(tag)>(p); });
}
void cuda_cholesky(ScalarType dtype, const CholeskyParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { cholesky<decltype(tag)>(p); });
}
void cuda_geqrf(ScalarType dtype, const QrFactorParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { geqrf<decltype(tag)>(p); });
}
void cuda_orgqr(ScalarType dtype, const QrOrgqrParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { orgqr<decltype(tag)>(p); });
}
void cuda_svd(ScalarType dtype, const SvdParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { svd<decltype(tag)>(dtype, p); });
}
void cuda_eigh(ScalarType dtype, const EighParams& p) {
  visit_float_or_double(dtype, [&](auto tag) { eigh<decltype(tag)>(p); });
}

}  // namespace

void register_cuda_lapack_kernels() {
  const DtypeMask dtypes = dtype_bit(kFloat) | dtype_bit(kDouble);
  register_kernel<OpId::lu_factor>(kCUDA, &cuda_lu_factor, dtypes);
  register_kernel<OpId::lu_solve>(kCUDA, &cuda_lu_solve, dtypes);
  register_kernel<OpId::cholesky>(kCUDA, &cuda_cholesky, dtypes);
  register_kernel<OpId::geqrf>(kCUDA, &cuda_geqrf, dtypes);
  register_kernel<OpId::orgqr>(kCUDA, &cuda_orgqr, dtypes);
  register_kernel<OpId::svd>(kCUDA, &cuda_svd, dtypes);
  register_kernel<OpId::eigh>(kCUDA, &cuda_eigh, dtypes);
}

}  // namespace ember::cuda_detail
