// The conv slots on CUDA through cuDNN (conv_cudnn_api.h runs one cuDNN call): how ConvParams
// maps onto what cuDNN's legacy API takes, and the staging where it does not.
//
// Geometry: 1-d runs as 2-d with H = 1 (cuDNN's tensors are 4-D or 5-D). cuDNN pads
// symmetrically and floors the output size; ConvParams has a left padding pl and an implied
// right one pr (conv_pad_right), possibly smaller (the floor, or a transposed convolution's
// output_padding), larger ('same' with an even kernel) or negative. With pad = pl cuDNN's output
// has (in + 2·pl - span) / stride + 1 = out + ⌊(pl - pr) / stride⌋ elements, so
// 0 <= pl - pr < stride runs as it is: every PyTorch padding but the two below. Otherwise x goes
// through a staged copy with p = max(0, min(pl, pr)) zeros kept for cuDNN and the rest made
// explicit: pl - p zeros before x, pr - p after (or, pr < 0, x's unread tail cut off), as
// PyTorch does for 'same'. The staged copy's extent is in + pl + pr - 2p, so cuDNN's output is
// exactly `out`. Backward data writes the staged gradient, and its interior is copied out (x's
// cut-off tail gets 0: nothing read it).
//
// Layout: channels-last x/y run as NHWC with the filter permuted to KRSC (cuDNN's algorithms
// want the filter in the data's layout, as PyTorch gives it); float64 stays NCHW, as in
// PyTorch, since cuDNN's float64 kernels are NCHW ones, so channels-last float64 x/y are staged
// through NCHW copies. Should cuDNN refuse a channels-last problem anyway, the call runs again
// that way. Operands not 16-byte aligned (odd views) are staged too: some algorithms load
// vectors.
//
// Size: cuDNN's descriptors hold int dims and strides, so the batch runs in chunks of at most
// 2^31-1 elements per tensor (the weight gradient accumulates over the chunks); one sample past
// that is an error.
//
// Bias: added after the convolution by Ember's own add kernel (broadcast over y), and its
// gradient is Ember's sum kernel over every dim but the channels (deterministic, float32
// accumulation for 16-bit types), which cover every dtype where cuDNN's bias helpers do not.
#ifdef EMBER_WITH_CUDNN

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "kernels/common/conv_params.h"
#include "kernels/common/elementwise_loop.h"
#include "kernels/common/reduce_loop.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/conv_cudnn.h"
#include "kernels/cuda/conv_cudnn_api.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember::cuda_detail {
namespace {

constexpr int64_t kCudnnIntMax = 2147483647;  // cuDNN's dims and strides are int
constexpr uintptr_t kCudnnAlignment = 16;     // the widest vector load of cuDNN's kernels

// Packed element strides of sizes given in N, C, spatial... order: NC... or, channels_last,
// N...C. A size-1 dim gets the stride it would have if it were larger (cuDNN infers the layout
// from the strides, so they must not look like another layout's).
void conv_packed_strides(int nbdims, const int64_t* size, bool channels_last, int64_t* stride) {
  int64_t z = 1;
  if (channels_last) {
    stride[1] = 1;
    z = size[1];
    for (int d = nbdims - 1; d >= 2; --d) {
      stride[d] = z;
      z *= size[d];
    }
  } else {
    for (int d = nbdims - 1; d >= 1; --d) {
      stride[d] = z;
      z *= size[d];
    }
  }
  stride[0] = z;
}

// ConvParams in cuDNN's terms, and what has to be staged. Spatial arrays hold the sd = nbdims - 2
// dims cuDNN sees (for a 1-d convolution, H = 1 first).
struct CudnnConvPlan {
  const char* op = "";
  ScalarType dtype = ScalarType::Float;
  int64_t item = 4;
  int nbdims = 4, sd = 2;
  int64_t n = 0, ic = 0, oc = 0, groups = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};        // cuDNN's symmetric padding
  int64_t staged_in[3] = {1, 1, 1};  // x's extent as cuDNN sees it (in, unless padding is staged)
  int64_t lead[3] = {0, 0, 0};       // explicit zeros before x in the staged copy
  int64_t copied[3] = {1, 1, 1};     // x's leading elements that lie in the staged copy
  bool padded = false;               // some padding is made explicit in a staged x
  bool cropped = false;              // some x elements lie outside it (their gradient is 0)
  bool data_cl = false;              // x and y in memory are channels-last
  bool compute_cl = false;           // cuDNN runs NHWC (filter KRSC)
  bool stage_x = false, stage_y = false, stage_w = false;
  int64_t x_sample = 0, xs_sample = 0, y_sample = 0, w_numel = 0, out_volume = 1;
  int64_t chunk = 1;  // samples per cuDNN call
};

bool conv_aligned(const void* p, int64_t chunk_bytes, bool chunked) {
  return reinterpret_cast<uintptr_t>(p) % kCudnnAlignment == 0 &&
         (!chunked || chunk_bytes % static_cast<int64_t>(kCudnnAlignment) == 0);
}

CudnnConvPlan cudnn_conv_plan(const char* op, ScalarType dtype, const ConvParams& p,
                              bool compute_cl) {
  CudnnConvPlan P;
  P.op = op;
  P.dtype = dtype;
  P.item = element_size(dtype);
  P.sd = p.spatial == 1 ? 2 : p.spatial;
  P.nbdims = P.sd + 2;
  P.n = p.n;
  P.ic = p.ic;
  P.oc = p.oc;
  P.groups = p.groups;
  const int off = P.sd - p.spatial;
  for (int i = 0; i < p.spatial; ++i) {
    const int j = off + i;
    P.in[j] = p.in[i];
    P.out[j] = p.out[i];
    P.k[j] = p.k[i];
    P.stride[j] = p.stride[i];
    P.dilation[j] = p.dilation[i];
    const int64_t pl = p.pad[i], pr = conv_pad_right(p, i);
    if (pl - pr >= 0 && pl - pr < p.stride[i]) {
      P.pad[j] = pl;  // cuDNN's floor gives `out` by itself
      P.staged_in[j] = P.copied[j] = p.in[i];
    } else {
      const int64_t sym = std::max<int64_t>(0, std::min(pl, pr));
      P.pad[j] = sym;
      P.lead[j] = pl - sym;
      P.staged_in[j] = p.in[i] + pl + pr - 2 * sym;  // >= dilated kernel span >= 1
      P.copied[j] = std::clamp<int64_t>(P.staged_in[j] - P.lead[j], 0, p.in[i]);
      P.padded = true;
      P.cropped = P.cropped || P.copied[j] < p.in[i];
    }
  }
  int64_t in_volume = 1, staged_volume = 1, k_volume = 1;
  for (int j = 0; j < P.sd; ++j) {
    in_volume *= P.in[j];
    staged_volume *= P.staged_in[j];
    P.out_volume *= P.out[j];
    k_volume *= P.k[j];
    EMBER_CHECK(P.pad[j] <= kCudnnIntMax && P.stride[j] <= kCudnnIntMax &&
                    P.dilation[j] <= kCudnnIntMax && P.staged_in[j] <= kCudnnIntMax,
                "{}: cuDNN takes padding, stride and dilation below 2^31, got padding {}, "
                "stride {}, dilation {}",
                op, P.pad[j], P.stride[j], P.dilation[j]);
  }
  P.x_sample = P.ic * in_volume;
  P.xs_sample = P.ic * staged_volume;
  P.y_sample = P.oc * P.out_volume;
  P.w_numel = P.oc * (P.ic / P.groups) * k_volume;
  const int64_t largest = std::max({P.x_sample, P.xs_sample, P.y_sample});
  EMBER_CHECK(largest <= kCudnnIntMax,
              "{}: cuDNN takes at most 2^31-1 elements per sample, but one sample of the input "
              "has {} and of the output {} (channels {} -> {})",
              op, P.x_sample, P.y_sample, P.ic, P.oc);
  EMBER_CHECK(P.w_numel <= kCudnnIntMax,
              "{}: cuDNN takes a weight of at most 2^31-1 elements, got {}", op, P.w_numel);
  P.chunk = std::min(P.n, kCudnnIntMax / largest);

  P.data_cl = p.channels_last;
  P.compute_cl = compute_cl;
  const bool chunked = P.chunk < P.n;
  const bool relayout = P.data_cl != P.compute_cl;
  P.stage_x = P.padded || relayout || !conv_aligned(p.x, P.chunk * P.x_sample * P.item, chunked);
  P.stage_y = relayout || !conv_aligned(p.y, P.chunk * P.y_sample * P.item, chunked);
  P.stage_w = P.compute_cl || !conv_aligned(p.w, 0, false);
  return P;
}

// Sizes in N, C, spatial order: x as cuDNN sees it (staged extent), x's box that is copied, y,
// and the weight (K, C/groups, kernel).
void conv_x_dims(const CudnnConvPlan& P, int64_t nc, const int64_t* spatial, int64_t* dims) {
  dims[0] = nc;
  dims[1] = P.ic;
  for (int j = 0; j < P.sd; ++j) dims[2 + j] = spatial[j];
}
void conv_y_dims(const CudnnConvPlan& P, int64_t nc, int64_t* dims) {
  dims[0] = nc;
  dims[1] = P.oc;
  for (int j = 0; j < P.sd; ++j) dims[2 + j] = P.out[j];
}
void conv_w_dims(const CudnnConvPlan& P, int64_t* dims) {
  dims[0] = P.oc;
  dims[1] = P.ic / P.groups;
  for (int j = 0; j < P.sd; ++j) dims[2 + j] = P.k[j];
}

// cuDNN's problem for a chunk of nc samples: every operand in the compute layout (an operand in
// another layout is staged, see cudnn_conv_plan).
CudnnConvProblem cudnn_conv_problem(const CudnnConvPlan& P, int64_t nc) {
  CudnnConvProblem q;
  q.nbdims = P.nbdims;
  q.dtype = P.dtype;
  q.groups = static_cast<int>(P.groups);
  q.channels_last = P.compute_cl;
  int64_t xd[5], yd[5], wd[5], xs[5], ys[5];
  conv_x_dims(P, nc, P.staged_in, xd);
  conv_y_dims(P, nc, yd);
  conv_w_dims(P, wd);
  conv_packed_strides(P.nbdims, xd, P.compute_cl, xs);
  conv_packed_strides(P.nbdims, yd, P.compute_cl, ys);
  for (int d = 0; d < P.nbdims; ++d) {
    q.x[d] = static_cast<int>(xd[d]);
    q.x_strides[d] = static_cast<int>(xs[d]);
    q.y[d] = static_cast<int>(yd[d]);
    q.y_strides[d] = static_cast<int>(ys[d]);
    q.w[d] = static_cast<int>(wd[d]);
  }
  for (int j = 0; j < P.sd; ++j) {
    q.pad[j] = static_cast<int>(P.pad[j]);
    q.stride[j] = static_cast<int>(P.stride[j]);
    q.dilation[j] = static_cast<int>(P.dilation[j]);
  }
  return q;
}

// dst[i] = src[i] over an N-d box, each side with its own element strides: Ember's CUDA copy
// kernel (the cast slot, same dtype), dims ordered by the destination's strides so the writes
// coalesce.
void conv_copy_box(ScalarType dtype, int nbdims, const int64_t* box, char* dst,
                   const int64_t* dst_strides, const char* src, const int64_t* src_strides) {
  struct Dim {
    int64_t size, dst, src;
  };
  Dim dims[5];
  int nd = 0;
  int64_t numel = 1;
  for (int d = 0; d < nbdims; ++d) {
    numel *= box[d];
    if (box[d] != 1) dims[nd++] = {box[d], dst_strides[d], src_strides[d]};
  }
  if (numel == 0) return;
  // Insertion sort (at most 5 dims; std::sort here trips GCC 12's -Warray-bounds).
  for (int i = 1; i < nd; ++i)
    for (int j = i; j > 0 && dims[j].dst < dims[j - 1].dst; --j) std::swap(dims[j], dims[j - 1]);
  const int64_t item = element_size(dtype);
  ElementwiseLoop L;
  L.noperands = 2;
  L.numel = numel;
  L.dtype = L.out_dtype = dtype;
  L.contiguous = false;
  L.ndim = std::max(nd, 1);
  L.sizes[0] = 1;
  for (int i = 0; i < nd; ++i) {
    L.sizes[i] = dims[i].size;
    L.strides[0][i] = dims[i].dst * item;
    L.strides[1][i] = dims[i].src * item;
  }
  L.data[0] = dst;
  L.data[1] = const_cast<char*>(src);
  get_kernel<kernel_kind::Elementwise>(OpId::cast, kCUDA, dtype)(L);
}

// x's nc samples at `x` (data layout) into the staged copy's interior, or (into_staged false) the
// interior back to x.
void conv_stage_x(const CudnnConvPlan& P, int64_t nc, char* x, char* staged, bool into_staged) {
  int64_t box[5], data_dims[5], staged_dims[5], data_strides[5], staged_strides[5];
  conv_x_dims(P, nc, P.copied, box);
  conv_x_dims(P, nc, P.in, data_dims);
  conv_x_dims(P, nc, P.staged_in, staged_dims);
  conv_packed_strides(P.nbdims, data_dims, P.data_cl, data_strides);
  conv_packed_strides(P.nbdims, staged_dims, P.compute_cl, staged_strides);
  int64_t offset = 0;
  for (int j = 0; j < P.sd; ++j) offset += P.lead[j] * staged_strides[2 + j];
  char* interior = staged + offset * P.item;
  if (into_staged)
    conv_copy_box(P.dtype, P.nbdims, box, interior, staged_strides, x, data_strides);
  else
    conv_copy_box(P.dtype, P.nbdims, box, x, data_strides, interior, staged_strides);
}

// y's nc samples between the data layout and the compute layout.
void conv_stage_y(const CudnnConvPlan& P, int64_t nc, char* y, char* staged, bool into_staged) {
  int64_t dims[5], data_strides[5], staged_strides[5];
  conv_y_dims(P, nc, dims);
  conv_packed_strides(P.nbdims, dims, P.data_cl, data_strides);
  conv_packed_strides(P.nbdims, dims, P.compute_cl, staged_strides);
  if (into_staged)
    conv_copy_box(P.dtype, P.nbdims, dims, staged, staged_strides, y, data_strides);
  else
    conv_copy_box(P.dtype, P.nbdims, dims, y, data_strides, staged, staged_strides);
}

// The weight between its KCRS layout and the compute layout (KRSC when channels-last).
void conv_stage_w(const CudnnConvPlan& P, char* w, char* staged, bool into_staged) {
  int64_t dims[5], plain_strides[5], staged_strides[5];
  conv_w_dims(P, dims);
  conv_packed_strides(P.nbdims, dims, false, plain_strides);
  conv_packed_strides(P.nbdims, dims, P.compute_cl, staged_strides);
  if (into_staged)
    conv_copy_box(P.dtype, P.nbdims, dims, staged, staged_strides, w, plain_strides);
  else
    conv_copy_box(P.dtype, P.nbdims, dims, w, plain_strides, staged, staged_strides);
}

void conv_zero(void* p, int64_t elements, int64_t item) {
  // All-zero bytes are +0.0 in every floating dtype.
  EMBER_CUDA_CHECK(cudaMemsetAsync(p, 0, static_cast<size_t>(elements * item), current_stream()));
}

size_t conv_bytes(const CudnnConvPlan& P, int64_t elements) {
  return static_cast<size_t>(elements * P.item);
}

// y += b broadcast over every dim but the channels, with Ember's add kernel.
void conv_add_bias(const CudnnConvPlan& P, void* y, const void* b) {
  const int64_t S = P.out_volume;
  int64_t sizes[3], ys[3], bs[3];
  if (P.data_cl) {
    sizes[0] = P.oc, sizes[1] = S, sizes[2] = P.n;
    ys[0] = 1, ys[1] = P.oc, ys[2] = P.oc * S;
    bs[0] = 1, bs[1] = 0, bs[2] = 0;
  } else {
    sizes[0] = S, sizes[1] = P.oc, sizes[2] = P.n;
    ys[0] = 1, ys[1] = S, ys[2] = P.oc * S;
    bs[0] = 0, bs[1] = 1, bs[2] = 0;
  }
  ElementwiseLoop L;
  L.noperands = 3;
  L.numel = P.n * P.oc * S;
  L.dtype = L.out_dtype = P.dtype;
  L.contiguous = false;
  L.ndim = 3;
  for (int i = 0; i < 3; ++i) {
    L.sizes[i] = sizes[i];
    L.strides[0][i] = L.strides[1][i] = ys[i] * P.item;
    L.strides[2][i] = bs[i] * P.item;
  }
  L.data[0] = L.data[1] = static_cast<char*>(y);
  L.data[2] = static_cast<char*>(const_cast<void*>(b));
  L.scalars.s[0] = 1;  // add's alpha
  get_kernel<kernel_kind::Elementwise>(OpId::add, kCUDA, P.dtype)(L);
}

// db[c] = Σ over n and the spatial dims of dy[n, c, ...], with Ember's sum kernel.
void conv_bias_grad(const CudnnConvPlan& P, const void* dy, void* db) {
  const int64_t S = P.out_volume;
  ReduceLoop L;
  L.out_ndim = 1;
  if (P.oc == 1) {
    L.out_sizes[0] = 1, L.out_in_strides[0] = 0, L.out_strides[0] = 0;
  } else {
    L.out_sizes[0] = P.oc;
    L.out_in_strides[0] = (P.data_cl ? 1 : S) * P.item;
    L.out_strides[0] = 1;
  }
  // Reduced dims innermost first, merged where they walk memory as one.
  struct Dim {
    int64_t size, stride;
  };
  Dim red[2];
  int nr = 0;
  const Dim candidates[2] = {{S, (P.data_cl ? P.oc : 1) * P.item}, {P.n, P.oc * S * P.item}};
  for (const Dim& d : candidates) {
    if (d.size == 1) continue;
    if (nr > 0 && d.stride == red[nr - 1].stride * red[nr - 1].size) {
      red[nr - 1].size *= d.size;
      continue;
    }
    red[nr++] = d;
  }
  if (nr == 0) red[nr++] = {1, P.item};
  L.red_ndim = nr;
  for (int i = 0; i < nr; ++i) {
    L.red_sizes[i] = red[i].size;
    L.red_strides[i] = red[i].stride;
  }
  L.out_numel = P.oc;
  L.red_numel = P.n * S;
  L.in = static_cast<const char*>(dy);
  L.in_dtype = P.dtype;
  L.out[0] = static_cast<char*>(db);
  L.out_dtype[0] = P.dtype;
  get_kernel<kernel_kind::Reduce>(OpId::sum, kCUDA, P.dtype)(L);
}

// A chunk's refusal: before anything was written (the first chunk) it goes back to the caller,
// which may run the problem in the other layout; later it is an error.
cudnnStatus_t conv_refusal(const CudnnConvPlan& P, int64_t n0, const CudnnConvProblem& q,
                           cudnnStatus_t s) {
  if (n0 == 0) return s;
  throw_cudnn_no_algorithm(P.op, q, s);
}

cudnnStatus_t conv_forward(const CudnnConvPlan& P, const ConvParams& p) {
  std::optional<CudnnBuffer> w_buf, x_buf, y_buf;
  const void* w = p.w;
  if (P.stage_w) {
    w_buf.emplace(conv_bytes(P, P.w_numel));
    conv_stage_w(P, static_cast<char*>(const_cast<void*>(p.w)), w_buf->data(), true);
    w = w_buf->data();
  }
  if (P.stage_x) {
    x_buf.emplace(conv_bytes(P, P.chunk * P.xs_sample));
    // The padding stays zero across chunks: each writes the same interior.
    if (P.padded) conv_zero(x_buf->data(), P.chunk * P.xs_sample, P.item);
  }
  if (P.stage_y) y_buf.emplace(conv_bytes(P, P.chunk * P.y_sample));
  for (int64_t n0 = 0; n0 < P.n; n0 += P.chunk) {
    const int64_t nc = std::min(P.chunk, P.n - n0);
    char* x = static_cast<char*>(const_cast<void*>(p.x)) + n0 * P.x_sample * P.item;
    char* y = static_cast<char*>(p.y) + n0 * P.y_sample * P.item;
    CudnnConvOperands o;
    o.x = x;
    o.w = w;
    o.out = P.stage_y ? y_buf->data() : y;
    if (P.stage_x) {
      conv_stage_x(P, nc, x, x_buf->data(), true);
      o.x = x_buf->data();
    }
    const CudnnConvProblem q = cudnn_conv_problem(P, nc);
    const cudnnStatus_t s = cudnn_convolution(CudnnConvDirection::Forward, q, o, false);
    if (s != CUDNN_STATUS_SUCCESS) return conv_refusal(P, n0, q, s);
    if (P.stage_y) conv_stage_y(P, nc, y, y_buf->data(), false);
  }
  if (p.b) conv_add_bias(P, p.y, p.b);
  return CUDNN_STATUS_SUCCESS;
}

// p.x is the gradient written, p.y the gradient read.
cudnnStatus_t conv_backward_data(const CudnnConvPlan& P, const ConvParams& p) {
  std::optional<CudnnBuffer> w_buf, x_buf, y_buf;
  const void* w = p.w;
  if (P.stage_w) {
    w_buf.emplace(conv_bytes(P, P.w_numel));
    conv_stage_w(P, static_cast<char*>(const_cast<void*>(p.w)), w_buf->data(), true);
    w = w_buf->data();
  }
  // Elements of x that no window reads (cut off the staged copy) get no value from cuDNN.
  if (P.cropped) conv_zero(const_cast<void*>(p.x), P.n * P.x_sample, P.item);
  if (P.stage_x) x_buf.emplace(conv_bytes(P, P.chunk * P.xs_sample));
  if (P.stage_y) y_buf.emplace(conv_bytes(P, P.chunk * P.y_sample));
  for (int64_t n0 = 0; n0 < P.n; n0 += P.chunk) {
    const int64_t nc = std::min(P.chunk, P.n - n0);
    char* dx = static_cast<char*>(const_cast<void*>(p.x)) + n0 * P.x_sample * P.item;
    char* dy = static_cast<char*>(p.y) + n0 * P.y_sample * P.item;
    CudnnConvOperands o;
    o.w = w;
    o.y = dy;
    o.out = P.stage_x ? x_buf->data() : dx;
    if (P.stage_y) {
      conv_stage_y(P, nc, dy, y_buf->data(), true);
      o.y = y_buf->data();
    }
    const CudnnConvProblem q = cudnn_conv_problem(P, nc);
    const cudnnStatus_t s = cudnn_convolution(CudnnConvDirection::BackwardData, q, o, false);
    if (s != CUDNN_STATUS_SUCCESS) return conv_refusal(P, n0, q, s);
    if (P.stage_x) conv_stage_x(P, nc, dx, x_buf->data(), false);
  }
  return CUDNN_STATUS_SUCCESS;
}

// p.w is the weight gradient written; p.b, when set, the bias gradient.
cudnnStatus_t conv_backward_weights(const CudnnConvPlan& P, const ConvParams& p) {
  std::optional<CudnnBuffer> w_buf, x_buf, y_buf;
  void* dw = const_cast<void*>(p.w);
  if (P.stage_w) {
    w_buf.emplace(conv_bytes(P, P.w_numel));
    dw = w_buf->data();
  }
  if (P.stage_x) {
    x_buf.emplace(conv_bytes(P, P.chunk * P.xs_sample));
    if (P.padded) conv_zero(x_buf->data(), P.chunk * P.xs_sample, P.item);
  }
  if (P.stage_y) y_buf.emplace(conv_bytes(P, P.chunk * P.y_sample));
  for (int64_t n0 = 0; n0 < P.n; n0 += P.chunk) {
    const int64_t nc = std::min(P.chunk, P.n - n0);
    char* x = static_cast<char*>(const_cast<void*>(p.x)) + n0 * P.x_sample * P.item;
    char* dy = static_cast<char*>(p.y) + n0 * P.y_sample * P.item;
    CudnnConvOperands o;
    o.x = x;
    o.y = dy;
    o.out = dw;
    if (P.stage_x) {
      conv_stage_x(P, nc, x, x_buf->data(), true);
      o.x = x_buf->data();
    }
    if (P.stage_y) {
      conv_stage_y(P, nc, dy, y_buf->data(), true);
      o.y = y_buf->data();
    }
    const CudnnConvProblem q = cudnn_conv_problem(P, nc);
    // Chunks after the first add to the weight gradient.
    const cudnnStatus_t s =
        cudnn_convolution(CudnnConvDirection::BackwardFilter, q, o, /*accumulate=*/n0 > 0);
    if (s != CUDNN_STATUS_SUCCESS) return conv_refusal(P, n0, q, s);
  }
  if (P.stage_w) conv_stage_w(P, static_cast<char*>(const_cast<void*>(p.w)), w_buf->data(), false);
  if (p.b) conv_bias_grad(P, p.y, const_cast<void*>(p.b));
  return CUDNN_STATUS_SUCCESS;
}

// Runs `body` in the preferred layout (channels-last data runs NHWC, except float64), and once
// more in NC... should cuDNN have no channels-last algorithm for the problem.
template <class Body>
void conv_run(const char* op, ScalarType dtype, const ConvParams& p, Body&& body) {
  const bool prefer_cl = p.channels_last && dtype != ScalarType::Double;
  CudnnConvPlan plan = cudnn_conv_plan(op, dtype, p, prefer_cl);
  cudnnStatus_t s = body(plan, p);
  if (s == CUDNN_STATUS_SUCCESS) return;
  if (prefer_cl) {
    plan = cudnn_conv_plan(op, dtype, p, false);
    s = body(plan, p);
    if (s == CUDNN_STATUS_SUCCESS) return;
  }
  throw_cudnn_no_algorithm(op, cudnn_conv_problem(plan, plan.chunk), s);
}

}  // namespace

void cuda_convolution(ScalarType dtype, const ConvParams& p) {
  conv_run("convolution", dtype, p, &conv_forward);
}

void cuda_convolution_backward_data(ScalarType dtype, const ConvParams& p) {
  conv_run("convolution_backward_data", dtype, p, &conv_backward_data);
}

void cuda_convolution_backward_weights(ScalarType dtype, const ConvParams& p) {
  conv_run("convolution_backward_weights", dtype, p, &conv_backward_weights);
}

}  // namespace ember::cuda_detail

#endif  // EMBER_WITH_CUDNN
