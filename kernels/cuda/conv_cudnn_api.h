// Thin C++ over cuDNN's legacy convolution API for the conv kernels (conv_cudnn.cpp): the status
// check, the per-(thread, device) handle, RAII descriptors, and one cuDNN call of a direction with
// its algorithm chosen once per problem and cached (conv_cudnn_algo.cpp). Private to the CUDA
// backend; built only with cuDNN (EMBER_WITH_CUDNN).
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "ember/core/scalar_type.h"
#include "ember/core/storage.h"

namespace ember::cuda_detail {

/// Throws ember::Error "cuDNN error: <call> failed: <cudnnGetErrorString> (<code>) at file:line".
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file,
                                    int line);

/// EMBER_CUDNN_CHECK(cudnnSetStream(...)): throws an ember::Error naming the call when it fails.
#define EMBER_CUDNN_CHECK(call)                                                                \
  do {                                                                                         \
    cudnnStatus_t ember_cudnn_status_ = (call);                                                \
    if (ember_cudnn_status_ != CUDNN_STATUS_SUCCESS)                                           \
      ::ember::cuda_detail::throw_cudnn_error(ember_cudnn_status_, #call, __FILE__, __LINE__); \
  } while (0)

/// The calling thread's cuDNN handle for the current device, bound to current_stream().
cudnnHandle_t cudnn_handle();

/// A device buffer from the CUDA caching allocator (workspaces, staged operands), returned when
/// the scope ends: the stream orders that after every kernel queued on it before.
class CudnnBuffer {
 public:
  explicit CudnnBuffer(size_t nbytes) : p_(get_allocator(kCUDA)->allocate(nbytes)) {}
  ~CudnnBuffer() {
    if (p_.deleter) p_.deleter(p_.ptr, p_.ctx);
  }
  CudnnBuffer(const CudnnBuffer&) = delete;
  CudnnBuffer& operator=(const CudnnBuffer&) = delete;
  char* data() const { return static_cast<char*>(p_.ptr); }

 private:
  DataPtr p_;
};

/// The three cuDNN calls a convolution needs.
enum class CudnnConvDirection : int { Forward, BackwardData, BackwardFilter };

/// One cuDNN convolution call's problem, everything its descriptors hold. Tensors are 4-D or 5-D
/// (N, C, then 2 or 3 spatial dims: a 1-d convolution is a 2-d one with H = 1); x and y carry
/// explicit element strides (NCHW or NHWC packed); the filter is packed KCRS, or KRSC when
/// channels_last. The padding is symmetric: cuDNN has no other (conv_cudnn.cpp stages the rest).
struct CudnnConvProblem {
  int nbdims = 4;
  int x[5] = {}, x_strides[5] = {};
  int y[5] = {}, y_strides[5] = {};
  int w[5] = {};
  int pad[3] = {}, stride[3] = {}, dilation[3] = {};
  int groups = 1;
  bool channels_last = false;
  ScalarType dtype = ScalarType::Float;
};

/// The operands of one call, device memory of the problem's dtype. Which are read and which is
/// written depends on the direction: Forward writes y from x and w, BackwardData writes x (dx)
/// from y (dy) and w, BackwardFilter writes w (dw) from x and y (dy).
struct CudnnConvOperands {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* y = nullptr;
  void* out = nullptr;  // the written operand
};

/// Runs one cuDNN call of `dir`: out = result (accumulate false) or out += result (true). The
/// algorithm is chosen by cuDNN's heuristics the first time a problem is seen (on this device) and
/// then reused; its workspace comes from the CUDA caching allocator. Returns CUDNN_STATUS_SUCCESS,
/// or, when no algorithm takes the problem (a layout or dtype cuDNN lacks), the status the last
/// candidate refused with, having written nothing; any other failure throws.
cudnnStatus_t cudnn_convolution(CudnnConvDirection dir, const CudnnConvProblem& problem,
                                const CudnnConvOperands& operands, bool accumulate);

/// Throws the ember::Error for a problem no cuDNN algorithm takes, naming `op`, the problem and
/// the refusal `status`.
[[noreturn]] void throw_cudnn_no_algorithm(const char* op, const CudnnConvProblem& problem,
                                           cudnnStatus_t status);

}  // namespace ember::cuda_detail
