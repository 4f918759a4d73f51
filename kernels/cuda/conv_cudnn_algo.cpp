// One cuDNN convolution call (conv_cudnn_api.h): descriptors, the handle, and the algorithm
// choice cached per problem.
//
// Choosing: cuDNN's heuristics (cudnnGet*Algorithm_v7), not a benchmark (cudnnFind*): they cost
// microseconds instead of running every algorithm, and they pick the same algorithm on every run
// (PyTorch's default, benchmark=False, does the same). The first candidate that accepts the
// problem wins: it is run, and remembered only when it succeeds, so a candidate the heuristics
// offer but the execution refuses (NOT_SUPPORTED / BAD_PARAM, raised before any kernel runs) or
// whose workspace does not fit in memory just passes the turn to the next one. When none takes
// it, that answer is remembered too and returned to the caller (conv_cudnn.cpp then runs the
// problem in the other layout). The choice is keyed by everything the descriptors hold plus the
// device, in one map behind a mutex; a training loop sees a few dozen keys, and a lookup
// (~100 ns) is nothing next to the call.
//
// Math: float32 runs with CUDNN_FMA_MATH, exact float32 arithmetic and no TF32, like Ember's
// cuBLAS matmul (kernels/cuda/blas_kernels.cpp); PyTorch allows TF32 for cuDNN convolutions by
// default (torch.backends.cudnn.allow_tf32), trading ~3 decimal digits for speed. float16 and
// bfloat16 run on tensor cores with float32 accumulation (compute type float), float64 in
// float64.
//
// Determinism: the heuristics may choose backward algorithms that sum with atomics (backward
// data ALGO_0, backward filter ALGO_0/ALGO_3), as PyTorch allows unless deterministic
// algorithms are requested; forward algorithms are deterministic.
#ifdef EMBER_WITH_CUDNN

#include <algorithm>
#include <array>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/conv_cudnn_api.h"
#include "kernels/cuda/handle_pool.h"
#include "src/core/check.h"

namespace ember::cuda_detail {

void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
#if CUDNN_MAJOR >= 9
  // cuDNN 9 keeps a longer explanation of the last failure on this thread.
  char detail[512] = {};
  cudnnGetLastErrorString(detail, sizeof(detail));
  EMBER_FAIL("cuDNN error: {} failed: {} ({}) at {}:{}{}{}", call, cudnnGetErrorString(status),
             static_cast<int>(status), file, line, detail[0] ? ": " : "", detail);
#else
  EMBER_FAIL("cuDNN error: {} failed: {} ({}) at {}:{}", call, cudnnGetErrorString(status),
             static_cast<int>(status), file, line);
#endif
}

cudnnHandle_t cudnn_handle() {
  cudnnHandle_t h = thread_handle<cudnnHandle_t>(
      current_device(), [](cudnnHandle_t* out) { EMBER_CUDNN_CHECK(cudnnCreate(out)); });
  EMBER_CUDNN_CHECK(cudnnSetStream(h, current_stream()));
  return h;
}

namespace {

// ---- descriptors ----

class CudnnTensorDesc {
 public:
  CudnnTensorDesc() { EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_)); }
  ~CudnnTensorDesc() { (void)cudnnDestroyTensorDescriptor(d_); }
  CudnnTensorDesc(const CudnnTensorDesc&) = delete;
  CudnnTensorDesc& operator=(const CudnnTensorDesc&) = delete;
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

class CudnnFilterDesc {
 public:
  CudnnFilterDesc() { EMBER_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d_)); }
  ~CudnnFilterDesc() { (void)cudnnDestroyFilterDescriptor(d_); }
  CudnnFilterDesc(const CudnnFilterDesc&) = delete;
  CudnnFilterDesc& operator=(const CudnnFilterDesc&) = delete;
  cudnnFilterDescriptor_t get() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

class CudnnConvDesc {
 public:
  CudnnConvDesc() { EMBER_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d_)); }
  ~CudnnConvDesc() { (void)cudnnDestroyConvolutionDescriptor(d_); }
  CudnnConvDesc(const CudnnConvDesc&) = delete;
  CudnnConvDesc& operator=(const CudnnConvDesc&) = delete;
  cudnnConvolutionDescriptor_t get() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
};

struct CudnnTypes {
  cudnnDataType_t data, compute;
  cudnnMathType_t math;
};

CudnnTypes cudnn_types(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_FMA_MATH};
    case ScalarType::Double:
      return {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH};
    case ScalarType::Half:
      return {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH};
    case ScalarType::BFloat16:
      return {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH};
    default:
      EMBER_CHECK_TYPE(false,
                       "convolution: CUDA convolution takes float32, float64, float16 or "
                       "bfloat16, got {}",
                       t);
  }
  return {};  // unreachable
}

// The math type a candidate runs with: float32 never with TF32 (see the file comment), whatever
// the heuristics' entry says; the other dtypes as the entry says.
cudnnMathType_t cudnn_math_for(ScalarType t, cudnnMathType_t suggested) {
  return t == ScalarType::Float ? CUDNN_FMA_MATH : suggested;
}

struct CudnnConvDescs {
  CudnnTensorDesc x, y;
  CudnnFilterDesc w;
  CudnnConvDesc conv;

  explicit CudnnConvDescs(const CudnnConvProblem& p) {
    const CudnnTypes t = cudnn_types(p.dtype);
    EMBER_CUDNN_CHECK(cudnnSetTensorNdDescriptor(x.get(), t.data, p.nbdims, p.x, p.x_strides));
    EMBER_CUDNN_CHECK(cudnnSetTensorNdDescriptor(y.get(), t.data, p.nbdims, p.y, p.y_strides));
    // The filter's dims are K, C, (D,) H, W in either format; the format says how they lie.
    EMBER_CUDNN_CHECK(cudnnSetFilterNdDescriptor(
        w.get(), t.data, p.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, p.nbdims, p.w));
    // Cross-correlation: PyTorch's (and the CPU kernels') convolution does not flip the kernel.
    EMBER_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(
        conv.get(), p.nbdims - 2, p.pad, p.stride, p.dilation, CUDNN_CROSS_CORRELATION, t.compute));
    EMBER_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv.get(), p.groups));
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(conv.get(), t.math));
  }
};

// alpha = 1 and beta = 0 or 1, as the pointers cuDNN reads: double for float64 data, float for
// the rest (cuDNN's rule: the scaling type follows the compute type).
struct CudnnScaling {
  double alpha_d = 1, beta_d = 0;
  float alpha_f = 1, beta_f = 0;
  bool use_double = false;
  CudnnScaling(ScalarType t, bool accumulate)
      : beta_d(accumulate ? 1 : 0),
        beta_f(accumulate ? 1.f : 0.f),
        use_double(t == ScalarType::Double) {}
  const void* alpha() const {
    return use_double ? static_cast<const void*>(&alpha_d) : static_cast<const void*>(&alpha_f);
  }
  const void* beta() const {
    return use_double ? static_cast<const void*>(&beta_d) : static_cast<const void*>(&beta_f);
  }
};

// ---- the three directions behind one interface ----

template <CudnnConvDirection D>
struct CudnnDir;

template <>
struct CudnnDir<CudnnConvDirection::Forward> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr const char* kCall = "cudnnConvolutionForward";
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionForwardAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristics(cudnnHandle_t h, const CudnnConvDescs& d, int want, int* got,
                                  Perf* perf) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(),
                                                  want, got, perf);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const CudnnConvDescs& d, Algo a, size_t* n) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(),
                                                   a, n);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const CudnnConvDescs& d, Algo a,
                           const CudnnConvOperands& o, void* ws, size_t ws_bytes,
                           const CudnnScaling& s) {
    return cudnnConvolutionForward(h, s.alpha(), d.x.get(), o.x, d.w.get(), o.w, d.conv.get(), a,
                                   ws, ws_bytes, s.beta(), d.y.get(), o.out);
  }
};

template <>
struct CudnnDir<CudnnConvDirection::BackwardData> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr const char* kCall = "cudnnConvolutionBackwardData";
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristics(cudnnHandle_t h, const CudnnConvDescs& d, int want, int* got,
                                  Perf* perf) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.get(), d.y.get(), d.conv.get(),
                                                       d.x.get(), want, got, perf);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const CudnnConvDescs& d, Algo a, size_t* n) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w.get(), d.y.get(), d.conv.get(),
                                                        d.x.get(), a, n);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const CudnnConvDescs& d, Algo a,
                           const CudnnConvOperands& o, void* ws, size_t ws_bytes,
                           const CudnnScaling& s) {
    return cudnnConvolutionBackwardData(h, s.alpha(), d.w.get(), o.w, d.y.get(), o.y, d.conv.get(),
                                        a, ws, ws_bytes, s.beta(), d.x.get(), o.out);
  }
};

template <>
struct CudnnDir<CudnnConvDirection::BackwardFilter> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr const char* kCall = "cudnnConvolutionBackwardFilter";
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristics(cudnnHandle_t h, const CudnnConvDescs& d, int want, int* got,
                                  Perf* perf) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.get(), d.y.get(), d.conv.get(),
                                                         d.w.get(), want, got, perf);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const CudnnConvDescs& d, Algo a, size_t* n) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x.get(), d.y.get(), d.conv.get(),
                                                          d.w.get(), a, n);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const CudnnConvDescs& d, Algo a,
                           const CudnnConvOperands& o, void* ws, size_t ws_bytes,
                           const CudnnScaling& s) {
    return cudnnConvolutionBackwardFilter(h, s.alpha(), d.x.get(), o.x, d.y.get(), o.y,
                                          d.conv.get(), a, ws, ws_bytes, s.beta(), d.w.get(),
                                          o.out);
  }
};

// ---- the algorithm cache ----

using CudnnAlgoKey = std::array<int, 48>;

CudnnAlgoKey cudnn_algo_key(CudnnConvDirection dir, const CudnnConvProblem& p) {
  CudnnAlgoKey k{};
  size_t i = 0;
  k[i++] = static_cast<int>(dir);
  k[i++] = current_device();
  k[i++] = static_cast<int>(p.dtype);
  k[i++] = p.nbdims;
  for (int d = 0; d < 5; ++d) {
    k[i++] = p.x[d];
    k[i++] = p.x_strides[d];
    k[i++] = p.y[d];
    k[i++] = p.y_strides[d];
    k[i++] = p.w[d];
  }
  for (int d = 0; d < 3; ++d) {
    k[i++] = p.pad[d];
    k[i++] = p.stride[d];
    k[i++] = p.dilation[d];
  }
  k[i++] = p.groups;
  k[i++] = p.channels_last ? 1 : 0;
  return k;
}

// The algorithm a problem runs with, or (refused != SUCCESS) the answer that no algorithm takes
// it, remembered too so the caller's fallback does not ask the heuristics again on every call.
struct CudnnAlgoChoice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
  cudnnStatus_t refused = CUDNN_STATUS_SUCCESS;
};

std::mutex g_cudnn_algo_mutex;
std::map<CudnnAlgoKey, CudnnAlgoChoice>& cudnn_algo_cache() {
  static auto* cache = new std::map<CudnnAlgoKey, CudnnAlgoChoice>();  // outlives static tensors
  return *cache;
}

std::optional<CudnnAlgoChoice> cudnn_cached_algo(const CudnnAlgoKey& key) {
  std::lock_guard<std::mutex> lock(g_cudnn_algo_mutex);
  auto it = cudnn_algo_cache().find(key);
  if (it == cudnn_algo_cache().end()) return std::nullopt;
  return it->second;
}

void cudnn_remember_algo(const CudnnAlgoKey& key, const CudnnAlgoChoice& choice) {
  std::lock_guard<std::mutex> lock(g_cudnn_algo_mutex);
  cudnn_algo_cache().emplace(key, choice);
}

// A status a candidate algorithm answers with when it does not take the problem (checked before
// anything runs), as opposed to a failure of the call itself.
bool cudnn_refused(cudnnStatus_t s) {
#ifdef CUDNN_STATUS_CATEGORY
  const int category = CUDNN_STATUS_CATEGORY(static_cast<int>(s));
  return category == CUDNN_STATUS_NOT_SUPPORTED || category == CUDNN_STATUS_BAD_PARAM;
#else
  return s == CUDNN_STATUS_NOT_SUPPORTED || s == CUDNN_STATUS_BAD_PARAM;
#endif
}

std::string cudnn_dims(const int* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

template <CudnnConvDirection D>
cudnnStatus_t cudnn_run_direction(const CudnnConvProblem& p, const CudnnConvOperands& o,
                                  bool accumulate) {
  using Dir = CudnnDir<D>;
  using Algo = typename Dir::Algo;
  cudnnHandle_t h = cudnn_handle();
  const CudnnConvDescs d(p);
  const CudnnScaling scaling(p.dtype, accumulate);
  const CudnnAlgoKey key = cudnn_algo_key(D, p);

  if (const std::optional<CudnnAlgoChoice> hit = cudnn_cached_algo(key)) {
    if (hit->refused != CUDNN_STATUS_SUCCESS) return hit->refused;
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(d.conv.get(), hit->math));
    CudnnBuffer ws(hit->workspace);
    const cudnnStatus_t s =
        Dir::run(h, d, static_cast<Algo>(hit->algo), o, ws.data(), hit->workspace, scaling);
    if (s != CUDNN_STATUS_SUCCESS) throw_cudnn_error(s, Dir::kCall, __FILE__, __LINE__);
    return CUDNN_STATUS_SUCCESS;
  }

  int max_count = 0;
  EMBER_CUDNN_CHECK(Dir::max_count(h, &max_count));
  std::vector<typename Dir::Perf> perf(static_cast<size_t>(std::max(max_count, 1)));
  int count = 0;
  EMBER_CUDNN_CHECK(Dir::heuristics(h, d, static_cast<int>(perf.size()), &count, perf.data()));
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  std::exception_ptr out_of_memory;
  for (int i = 0; i < count; ++i) {
    const typename Dir::Perf& cand = perf[static_cast<size_t>(i)];
    if (cand.status != CUDNN_STATUS_SUCCESS) continue;
    const cudnnMathType_t math = cudnn_math_for(p.dtype, cand.mathType);
    last = cudnnSetConvolutionMathType(d.conv.get(), math);
    if (last != CUDNN_STATUS_SUCCESS) continue;
    size_t bytes = 0;
    last = Dir::workspace(h, d, cand.algo, &bytes);
    if (last != CUDNN_STATUS_SUCCESS) continue;
    std::optional<CudnnBuffer> ws;
    try {
      ws.emplace(bytes);
    } catch (const OutOfMemoryError&) {
      // An algorithm with a smaller workspace may still fit.
      out_of_memory = std::current_exception();
      continue;
    }
    last = Dir::run(h, d, cand.algo, o, ws->data(), bytes, scaling);
    if (last == CUDNN_STATUS_SUCCESS) {
      cudnn_remember_algo(key, {static_cast<int>(cand.algo), math, bytes, CUDNN_STATUS_SUCCESS});
      return CUDNN_STATUS_SUCCESS;
    }
    if (!cudnn_refused(last)) throw_cudnn_error(last, Dir::kCall, __FILE__, __LINE__);
  }
  if (out_of_memory) std::rethrow_exception(out_of_memory);
  if (last == CUDNN_STATUS_SUCCESS) last = CUDNN_STATUS_NOT_SUPPORTED;  // no candidate at all
  cudnn_remember_algo(key, {0, CUDNN_DEFAULT_MATH, 0, last});
  return last;
}

}  // namespace

void throw_cudnn_no_algorithm(const char* op, const CudnnConvProblem& p, cudnnStatus_t status) {
  EMBER_FAIL(
      "{}: cuDNN has no algorithm for this convolution ({}, x {}, weight {}, y {}, padding {}, "
      "stride {}, dilation {}, groups {}, {}): {}",
      op, p.dtype, cudnn_dims(p.x, p.nbdims), cudnn_dims(p.w, p.nbdims), cudnn_dims(p.y, p.nbdims),
      cudnn_dims(p.pad, p.nbdims - 2), cudnn_dims(p.stride, p.nbdims - 2),
      cudnn_dims(p.dilation, p.nbdims - 2), p.groups,
      p.channels_last ? "channels-last" : "contiguous", cudnnGetErrorString(status));
}

cudnnStatus_t cudnn_convolution(CudnnConvDirection dir, const CudnnConvProblem& problem,
                                const CudnnConvOperands& operands, bool accumulate) {
  switch (dir) {
    case CudnnConvDirection::Forward:
      return cudnn_run_direction<CudnnConvDirection::Forward>(problem, operands, accumulate);
    case CudnnConvDirection::BackwardData:
      return cudnn_run_direction<CudnnConvDirection::BackwardData>(problem, operands, accumulate);
    case CudnnConvDirection::BackwardFilter:
      return cudnn_run_direction<CudnnConvDirection::BackwardFilter>(problem, operands, accumulate);
  }
  return CUDNN_STATUS_BAD_PARAM;  // unreachable: every direction is handled above
}

}  // namespace ember::cuda_detail

#endif  // EMBER_WITH_CUDNN
