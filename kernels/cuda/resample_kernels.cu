// CUDA kernels of F::interpolate's slots, `upsample` and `upsample_backward` (operands in
// kernels/common/resample_params.h), numerically as kernels/cpu/resample_upsample.cpp: the taps of
// each dim are built on the host by the very same code (kernels/common/resample_taps.h, in float,
// or double for float64), sums run in that type and round once.
//
// Forward: a thread per output element sums its taps, the outer dims' tap pairs innermost and the
// inner dim's taps outermost, which is the order the CPU's planar loop adds in.
// Backward: the host also inverts each dim's taps (for each input index, the outputs that read it
// and their weights, in output order), so the backward is a gather as well: a thread per input
// element sums its inverse taps. Deterministic, no atomics, and the gradient is fully written.
//
// Threads follow the memory order of the tensors: (n, c, spatial...) for planar tensors,
// (n, spatial..., c) when both are channels-last, so neighbouring threads touch neighbouring
// elements. The tables (a few KB: about two taps per output) go to the device in one copy per
// call; a pageable host-to-device copy returns once the data is staged, so the host buffer may go
// right after.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "ember/core/half.h"
#include "ember/core/storage.h"
#include "kernels/common/resample_taps.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/loops.cuh"

namespace ember::kernels::cuda {
namespace upsample_cuda {

template <class T>
using upsample_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// One dim's table on the device: entry k in [start[i], start[i + 1]) reads index idx[k] with
// weight w[k]. Forward tables are indexed by output position (idx: input positions), inverse
// tables by input position (idx: output positions).
template <class A>
struct UpsampleDimTable {
  const int64_t* start;
  const int64_t* idx;
  const A* w;
};

// The params as three spatial dims (missing leading dims have size 1, one tap, stride 0), as the
// CPU's UpsampleGeometry.
template <class A>
struct UpsampleArgs {
  UpsampleDimTable<A> t[3];
  int64_t in[3], out[3];
  int64_t is[5], os[5];  // strides: N, C, d0, d1, d2
  int64_t channels;
  bool channels_last;
};

// A host-side blob of 8-byte-aligned segments, copied to the device in one call.
class UpsampleBlob {
 public:
  template <class V>
  size_t add(const std::vector<V>& v) {
    const size_t at = bytes_.size();
    const size_t n = v.size() * sizeof(V);
    bytes_.resize(at + ((n + 7) / 8) * 8);
    if (n) std::memcpy(bytes_.data() + at, v.data(), n);
    return at;
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

// A device buffer from the caching allocator, given back when the scope ends (stream order keeps
// it valid for the kernels queued before).
class UpsampleWorkspace {
 public:
  explicit UpsampleWorkspace(size_t bytes) {
    if (bytes) data_ = get_allocator(kCUDA)->allocate(bytes);
  }
  ~UpsampleWorkspace() {
    if (data_.deleter) data_.deleter(data_.ptr, data_.ctx);
  }
  UpsampleWorkspace(const UpsampleWorkspace&) = delete;
  UpsampleWorkspace& operator=(const UpsampleWorkspace&) = delete;
  unsigned char* bytes() const { return static_cast<unsigned char*>(data_.ptr); }

 private:
  DataPtr data_;
};

// The inverse of a tap table: for each of `in` input positions, the (output, weight) pairs that
// read it, by ascending output (and tap order within an output), so the backward adds in the
// order the CPU's scatter does.
template <class A>
resample::Taps<A> upsample_invert(const resample::Taps<A>& t, int64_t in) {
  resample::Taps<A> inv;
  const int64_t outs = static_cast<int64_t>(t.start.size()) - 1;
  inv.start.assign(static_cast<size_t>(in + 1), 0);
  for (int64_t i : t.idx) ++inv.start[i + 1];
  for (int64_t i = 0; i < in; ++i) inv.start[i + 1] += inv.start[i];
  inv.idx.resize(t.idx.size());
  inv.w.resize(t.w.size());
  std::vector<int64_t> fill(inv.start.begin(), inv.start.end() - 1);
  for (int64_t o = 0; o < outs; ++o)
    for (int64_t k = t.start[o]; k < t.start[o + 1]; ++k) {
      const int64_t at = fill[t.idx[k]]++;
      inv.idx[at] = o;
      inv.w[at] = t.w[k];
    }
  return inv;
}

// Uploads the three tables (forward or inverse) and fills args.t with their device addresses.
template <class A>
void upsample_upload(const resample::Taps<A> (&tables)[3], UpsampleArgs<A>& args,
                     std::unique_ptr<UpsampleWorkspace>& ws) {
  UpsampleBlob blob;
  size_t at[3][3];
  for (int d = 0; d < 3; ++d) {
    at[d][0] = blob.add(tables[d].start);
    at[d][1] = blob.add(tables[d].idx);
    at[d][2] = blob.add(tables[d].w);
  }
  const std::vector<unsigned char>& host = blob.bytes();
  ws = std::make_unique<UpsampleWorkspace>(host.size());
  unsigned char* base = ws->bytes();
  EMBER_CUDA_CHECK(cudaMemcpyAsync(base, host.data(), host.size(), cudaMemcpyHostToDevice,
                                   cuda_detail::current_stream()));
  for (int d = 0; d < 3; ++d) {
    args.t[d].start = reinterpret_cast<const int64_t*>(base + at[d][0]);
    args.t[d].idx = reinterpret_cast<const int64_t*>(base + at[d][1]);
    args.t[d].w = reinterpret_cast<const A*>(base + at[d][2]);
  }
}

// The geometry of p and the forward taps of each dim (the CPU's UpsampleGeometry).
template <class A>
void upsample_geometry(const UpsampleParams& p, UpsampleArgs<A>& args,
                       resample::Taps<A> (&taps)[3]) {
  const int pad = 3 - p.dims;
  for (int k = 0; k < 5; ++k) args.is[k] = args.os[k] = 0;
  args.is[0] = p.in_stride[0];
  args.is[1] = p.in_stride[1];
  args.os[0] = p.out_stride[0];
  args.os[1] = p.out_stride[1];
  for (int d = 0; d < 3; ++d) {
    args.in[d] = args.out[d] = 1;
    if (d < pad) {
      taps[d] = resample::Taps<A>();
      taps[d].add(0, A(1));
      taps[d].close();
      continue;
    }
    args.in[d] = p.in_size[d - pad];
    args.out[d] = p.out_size[d - pad];
    args.is[2 + d] = p.in_stride[2 + d - pad];
    args.os[2 + d] = p.out_stride[2 + d - pad];
    taps[d] = resample::make_taps<A>(p, d - pad);
  }
  args.channels = p.channels;
  args.channels_last = p.channels > 1 && args.is[1] == 1 && args.os[1] == 1;
}

// Splits the linear thread index e over [N, C, s0, s1, s2] of sizes `sz` into (n, c, s0, s1, s2),
// with the channels innermost when channels_last.
__device__ __forceinline__ void upsample_split(int64_t e, const int64_t* sz, int64_t channels,
                                               bool channels_last, int64_t* n, int64_t* c,
                                               int64_t* s) {
  if (channels_last) {
    *c = e % channels;
    e /= channels;
  }
  s[2] = e % sz[2];
  e /= sz[2];
  s[1] = e % sz[1];
  e /= sz[1];
  s[0] = e % sz[0];
  e /= sz[0];
  if (!channels_last) {
    *c = e % channels;
    e /= channels;
  }
  *n = e;
}

template <class T, class A>
__global__ void __launch_bounds__(kThreads)
    upsample_forward_kernel(UpsampleArgs<A> a, int64_t total, const T* __restrict__ src,
                            T* __restrict__ dst) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t n, c, o[3];
    upsample_split(e, a.out, a.channels, a.channels_last, &n, &c, o);
    const T* x = src + n * a.is[0] + c * a.is[1];
    const UpsampleDimTable<A>&t0 = a.t[0], &t1 = a.t[1], &t2 = a.t[2];
    A acc = 0;
    for (int64_t k2 = t2.start[o[2]]; k2 < t2.start[o[2] + 1]; ++k2) {
      const T* x2 = x + t2.idx[k2] * a.is[4];
      A inner = 0;
      for (int64_t k0 = t0.start[o[0]]; k0 < t0.start[o[0] + 1]; ++k0)
        for (int64_t k1 = t1.start[o[1]]; k1 < t1.start[o[1] + 1]; ++k1)
          inner +=
              t0.w[k0] * t1.w[k1] * static_cast<A>(x2[t0.idx[k0] * a.is[2] + t1.idx[k1] * a.is[3]]);
      acc += t2.w[k2] * inner;
    }
    dst[n * a.os[0] + c * a.os[1] + o[0] * a.os[2] + o[1] * a.os[3] + o[2] * a.os[4]] =
        static_cast<T>(acc);
  }
}

// a.t holds the inverse tables here: grad_input[i] = Σ over the outputs o reading i of
// w0·w1·w2·grad_output[o], the inner dim summed first (the CPU's row scatter), then the outer
// pairs in output order.
template <class T, class A>
__global__ void __launch_bounds__(kThreads)
    upsample_backward_kernel(UpsampleArgs<A> a, int64_t total, const T* __restrict__ gy,
                             T* __restrict__ gx) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t n, c, i[3];
    upsample_split(e, a.in, a.channels, a.channels_last, &n, &c, i);
    const T* y = gy + n * a.os[0] + c * a.os[1];
    const UpsampleDimTable<A>&t0 = a.t[0], &t1 = a.t[1], &t2 = a.t[2];
    A acc = 0;
    for (int64_t k0 = t0.start[i[0]]; k0 < t0.start[i[0] + 1]; ++k0)
      for (int64_t k1 = t1.start[i[1]]; k1 < t1.start[i[1] + 1]; ++k1) {
        const T* yr = y + t0.idx[k0] * a.os[2] + t1.idx[k1] * a.os[3];
        A inner = 0;
        for (int64_t k2 = t2.start[i[2]]; k2 < t2.start[i[2] + 1]; ++k2)
          inner += t2.w[k2] * static_cast<A>(yr[t2.idx[k2] * a.os[4]]);
        acc += t0.w[k0] * t1.w[k1] * inner;
      }
    gx[n * a.is[0] + c * a.is[1] + i[0] * a.is[2] + i[1] * a.is[3] + i[2] * a.is[4]] =
        static_cast<T>(acc);
  }
}

template <class T>
void upsample_forward(const UpsampleParams& p) {
  using A = upsample_acc_t<T>;
  UpsampleArgs<A> args{};
  resample::Taps<A> taps[3];
  upsample_geometry<A>(p, args, taps);
  const int64_t total = p.batch * p.channels * args.out[0] * args.out[1] * args.out[2];
  if (total == 0) return;
  std::unique_ptr<UpsampleWorkspace> ws;
  upsample_upload<A>(taps, args, ws);
  upsample_forward_kernel<T, A><<<grid_for(total), kThreads, 0, cuda_detail::current_stream()>>>(
      args, total, static_cast<const T*>(p.src), static_cast<T*>(p.dst));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void upsample_backward(const UpsampleParams& p) {
  using A = upsample_acc_t<T>;
  UpsampleArgs<A> args{};
  resample::Taps<A> taps[3];
  upsample_geometry<A>(p, args, taps);
  const int64_t total = p.batch * p.channels * args.in[0] * args.in[1] * args.in[2];
  if (total == 0) return;
  resample::Taps<A> inverse[3];
  for (int d = 0; d < 3; ++d) inverse[d] = upsample_invert<A>(taps[d], args.in[d]);
  std::unique_ptr<UpsampleWorkspace> ws;
  upsample_upload<A>(inverse, args, ws);
  upsample_backward_kernel<T, A><<<grid_for(total), kThreads, 0, cuda_detail::current_stream()>>>(
      args, total, static_cast<const T*>(p.src), static_cast<T*>(p.dst));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class Fn>
void upsample_visit(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace upsample_cuda

void cuda_upsample(ScalarType dtype, const UpsampleParams& p) {
  upsample_cuda::upsample_visit(
      dtype, [&](auto tag) { upsample_cuda::upsample_forward<typename decltype(tag)::type>(p); });
}

void cuda_upsample_backward(ScalarType dtype, const UpsampleParams& p) {
  upsample_cuda::upsample_visit(
      dtype, [&](auto tag) { upsample_cuda::upsample_backward<typename decltype(tag)::type>(p); });
}

}  // namespace ember::kernels::cuda
