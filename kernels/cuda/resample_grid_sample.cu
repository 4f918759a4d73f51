// CUDA kernels of F::grid_sample's slots, `grid_sample` and `grid_sample_backward` (operands in
// kernels/common/resample_params.h), the mirror of kernels/cpu/resample_grid_sample.cpp: a grid
// point gives each spatial dim up to four taps (index, weight, d(weight)/d(coordinate)) through
// the coordinate math both backends share (kernels/common/resample_math.h), and the forward sums
// the tap products per channel in float (double for float64), rounding once.
//
// A thread per grid point, looping over the channels (as PyTorch's CUDA kernel): the taps are
// computed once and reused C times. Tap combinations are walked as nested loops over the dims'
// taps (at most 4 x 4 in 2-D, 2 x 2 x 2 in 3-D) rather than listed, which keeps them in registers.
//
// Backward: grad_grid is a per-point sum over the channels (no atomics). grad_input is a scatter
// from arbitrary grid points, so it adds with atomics, as PyTorch does, into a float (double)
// workspace that a second kernel rounds into grad_input once: float16/bfloat16 gradients are
// then as the CPU's (one rounding), and float32/float64 ones may differ from run to run only in
// the order of the adds. The workspace keeps grad_input's memory order (channels innermost when
// it is channels-last), so both kernels walk it coalesced.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ember/core/half.h"
#include "ember/core/storage.h"
#include "kernels/common/resample_math.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/loops.cuh"

namespace ember::kernels::cuda {
namespace grid_sample_cuda {

template <class T>
using grid_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The params as three spatial dims (a 2-D sample gets a leading dim of size 1), as the CPU's
// GridGeometry, with the options the taps need.
struct GridArgs {
  GridSampleParams::Mode mode;
  GridSampleParams::Padding padding;
  bool align_corners;
  int dims, pad;
  int64_t channels;
  int64_t in[3], out[3];
  int64_t is[5], os[5];  // strides: N, C, d0, d1, d2
  bool channels_last;    // grad_input's channels innermost (workspace order)
  __host__ __device__ int64_t out_positions() const { return out[0] * out[1] * out[2]; }
  __host__ __device__ int64_t in_positions() const { return in[0] * in[1] * in[2]; }
};

GridArgs grid_args(const GridSampleParams& p) {
  GridArgs g{};
  g.mode = p.mode;
  g.padding = p.padding;
  g.align_corners = p.align_corners;
  g.dims = p.dims;
  g.pad = 3 - p.dims;
  g.channels = p.channels;
  for (int d = 0; d < 3; ++d) g.in[d] = g.out[d] = 1;
  for (int k = 0; k < 2; ++k) {
    g.is[k] = p.in_stride[k];
    g.os[k] = p.out_stride[k];
  }
  for (int d = g.pad; d < 3; ++d) {
    g.in[d] = p.in_size[d - g.pad];
    g.out[d] = p.out_size[d - g.pad];
    g.is[2 + d] = p.in_stride[2 + d - g.pad];
    g.os[2 + d] = p.out_stride[2 + d - g.pad];
  }
  g.channels_last = p.channels > 1 && g.is[1] == 1;
  return g;
}

// The taps one grid point gives one dim.
template <class A>
struct GridDimTaps {
  int n;
  int64_t idx[4];
  A w[4], dw[4];
};

// The CPU's dim_taps, line for line: out-of-range taps read zero (only `zeros` padding makes
// them) and are dropped.
template <class A>
__device__ void grid_dim_taps(const GridArgs& g, A coord, int64_t size, GridDimTaps<A>& t) {
  using Mode = GridSampleParams::Mode;
  A unnorm_grad, pad_grad;
  t.n = 0;
  auto add = [&](int64_t i, A w, A dw) {
    if (i < 0 || i >= size) return;
    t.idx[t.n] = i;
    t.w[t.n] = w;
    t.dw[t.n] = dw;
    ++t.n;
  };
  if (g.mode == Mode::Bicubic) {
    // PyTorch pads each of the four tap positions separately and does not differentiate that
    // padding: only the fraction's weights carry the gradient.
    A x = resample::grid_unnormalize(coord, size, g.align_corners, &unnorm_grad);
    if (!std::isfinite(x)) x = A(-100);
    const A fl = std::floor(x);
    A w[4], dw[4];
    resample::cubic_weights<A>(x - fl, A(-0.75), w, dw);
    for (int k = 0; k < 4; ++k) {
      const A tap = resample::grid_pad(fl - 1 + k, size, g.padding, g.align_corners, &pad_grad);
      add(static_cast<int64_t>(std::floor(tap)), w[k], dw[k] * unnorm_grad);
    }
    return;
  }
  A x = resample::grid_unnormalize(coord, size, g.align_corners, &unnorm_grad);
  x = resample::grid_pad(x, size, g.padding, g.align_corners, &pad_grad);
  const A gr = unnorm_grad * pad_grad;
  if (g.mode == Mode::Nearest) {
    add(static_cast<int64_t>(std::nearbyint(x)), A(1), A(0));
    return;
  }
  const A fl = std::floor(x);
  const int64_t i0 = static_cast<int64_t>(fl);
  const A f = x - fl;
  add(i0, 1 - f, -gr);
  add(i0 + 1, f, gr);
}

// The taps of grid point `gp` in every dim (a leading dummy dim has one tap of weight 1).
template <class T, class A>
__device__ __forceinline__ void grid_point_taps(const GridArgs& g, const T* gp,
                                                GridDimTaps<A> (&t)[3]) {
  for (int d = 0; d < 3; ++d) {
    if (d < g.pad) {
      t[d].n = 1;
      t[d].idx[0] = 0;
      t[d].w[0] = 1;
      t[d].dw[0] = 0;
      continue;
    }
    // Grid component 0 is x (the last spatial dim), 1 is y, 2 is z.
    grid_dim_taps<A>(g, static_cast<A>(gp[2 - d]), g.in[d], t[d]);
  }
}

// Output (or grad_output) element offset of grid position pos of image n, channel 0.
__device__ __forceinline__ int64_t grid_out_offset(const GridArgs& g, int64_t n, int64_t pos) {
  const int64_t o2 = pos % g.out[2], o1 = (pos / g.out[2]) % g.out[1];
  const int64_t o0 = pos / (g.out[2] * g.out[1]);
  return n * g.os[0] + o0 * g.os[2] + o1 * g.os[3] + o2 * g.os[4];
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    grid_forward_kernel(GridArgs g, int64_t points, const T* __restrict__ x,
                        const T* __restrict__ grid, T* __restrict__ y) {
  using A = grid_acc_t<T>;
  const int64_t P = g.out_positions();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t q = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < points;
       q += step) {
    const int64_t n = q / P, pos = q % P;
    GridDimTaps<A> t[3];
    grid_point_taps<T, A>(g, grid + q * g.dims, t);
    T* yp = y + grid_out_offset(g, n, pos);
    const T* xn = x + n * g.is[0];
    for (int64_t c = 0; c < g.channels; ++c) {
      const T* xc = xn + c * g.is[1];
      A acc = 0;
      for (int a = 0; a < t[0].n; ++a)
        for (int b = 0; b < t[1].n; ++b)
          for (int k = 0; k < t[2].n; ++k) {
            const A w = t[0].w[a] * t[1].w[b] * t[2].w[k];
            acc +=
                w * static_cast<A>(
                        xc[t[0].idx[a] * g.is[2] + t[1].idx[b] * g.is[3] + t[2].idx[k] * g.is[4]]);
          }
      yp[c * g.os[1]] = static_cast<T>(acc);
    }
  }
}

// Where grad_input element (n, c, flat input position) accumulates (see the file comment).
__device__ __forceinline__ int64_t grid_ws_index(const GridArgs& g, int64_t n, int64_t c,
                                                 int64_t flat) {
  return g.channels_last ? (n * g.in_positions() + flat) * g.channels + c
                         : (n * g.channels + c) * g.in_positions() + flat;
}

// ws (zeroed, may be null) += the grad_input scatter; gg (may be null) = grad_grid.
template <class T>
__global__ void __launch_bounds__(kThreads)
    grid_backward_kernel(GridArgs g, int64_t points, const T* __restrict__ x,
                         const T* __restrict__ grid, const T* __restrict__ gy, grid_acc_t<T>* ws,
                         T* __restrict__ gg) {
  using A = grid_acc_t<T>;
  const int64_t P = g.out_positions();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t q = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < points;
       q += step) {
    const int64_t n = q / P, pos = q % P;
    GridDimTaps<A> t[3];
    grid_point_taps<T, A>(g, grid + q * g.dims, t);
    const T* gyp = gy + grid_out_offset(g, n, pos);
    const T* xn = x + n * g.is[0];
    A gc[3] = {0, 0, 0};
    for (int64_t c = 0; c < g.channels; ++c) {
      const A gv = static_cast<A>(gyp[c * g.os[1]]);
      if (gv == A(0) && !gg) continue;
      const T* xc = xn + c * g.is[1];
      for (int a = 0; a < t[0].n; ++a)
        for (int b = 0; b < t[1].n; ++b)
          for (int k = 0; k < t[2].n; ++k) {
            const A w = t[0].w[a] * t[1].w[b] * t[2].w[k];
            if (ws) {
              const int64_t flat = (t[0].idx[a] * g.in[1] + t[1].idx[b]) * g.in[2] + t[2].idx[k];
              atomicAdd(ws + grid_ws_index(g, n, c, flat), w * gv);
            }
            if (gg) {
              const A v =
                  static_cast<A>(
                      xc[t[0].idx[a] * g.is[2] + t[1].idx[b] * g.is[3] + t[2].idx[k] * g.is[4]]) *
                  gv;
              gc[0] += t[0].dw[a] * t[1].w[b] * t[2].w[k] * v;
              gc[1] += t[0].w[a] * t[1].dw[b] * t[2].w[k] * v;
              gc[2] += t[0].w[a] * t[1].w[b] * t[2].dw[k] * v;
            }
          }
    }
    if (gg) {
      T* ggp = gg + q * g.dims;
      for (int k = 0; k < g.dims; ++k) ggp[k] = static_cast<T>(gc[2 - k]);
    }
  }
}

// grad_input (strided) = the workspace, rounded once; e walks the workspace in its order.
template <class T>
__global__ void __launch_bounds__(kThreads)
    grid_write_grad_input_kernel(GridArgs g, int64_t total, const grid_acc_t<T>* __restrict__ ws,
                                 T* __restrict__ gx) {
  const int64_t Q = g.in_positions();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t n, c, flat;
    if (g.channels_last) {
      c = e % g.channels;
      flat = (e / g.channels) % Q;
      n = e / (g.channels * Q);
    } else {
      flat = e % Q;
      c = (e / Q) % g.channels;
      n = e / (Q * g.channels);
    }
    const int64_t i2 = flat % g.in[2], i1 = (flat / g.in[2]) % g.in[1];
    const int64_t i0 = flat / (g.in[2] * g.in[1]);
    gx[n * g.is[0] + c * g.is[1] + i0 * g.is[2] + i1 * g.is[3] + i2 * g.is[4]] =
        static_cast<T>(ws[e]);
  }
}

// A device buffer from the caching allocator, given back when the scope ends (stream order keeps
// it valid for the kernels queued before).
class GridWorkspace {
 public:
  explicit GridWorkspace(size_t bytes) {
    if (bytes) data_ = get_allocator(kCUDA)->allocate(bytes);
  }
  ~GridWorkspace() {
    if (data_.deleter) data_.deleter(data_.ptr, data_.ctx);
  }
  GridWorkspace(const GridWorkspace&) = delete;
  GridWorkspace& operator=(const GridWorkspace&) = delete;
  void* data() const { return data_.ptr; }

 private:
  DataPtr data_;
};

template <class T>
void grid_forward(const GridSampleParams& p) {
  const GridArgs g = grid_args(p);
  const int64_t points = p.batch * g.out_positions();
  if (points == 0 || p.channels == 0) return;
  grid_forward_kernel<T><<<grid_for(points), kThreads, 0, cuda_detail::current_stream()>>>(
      g, points, static_cast<const T*>(p.input), static_cast<const T*>(p.grid),
      static_cast<T*>(p.output));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void grid_backward(const GridSampleParams& p) {
  using A = grid_acc_t<T>;
  const GridArgs g = grid_args(p);
  cudaStream_t stream = cuda_detail::current_stream();
  const int64_t points = p.batch * g.out_positions();
  const int64_t in_numel = p.batch * p.channels * g.in_positions();
  T* gx = static_cast<T*>(p.grad_input);
  T* gg = static_cast<T*>(p.grad_grid);
  GridWorkspace ws(gx ? static_cast<size_t>(in_numel) * sizeof(A) : 0);
  A* acc = static_cast<A*>(ws.data());
  if (acc)
    EMBER_CUDA_CHECK(cudaMemsetAsync(acc, 0, static_cast<size_t>(in_numel) * sizeof(A), stream));
  if (points > 0 && (acc || gg)) {
    // With no channels grad_grid is all zeros: the kernel writes it all the same.
    grid_backward_kernel<T><<<grid_for(points), kThreads, 0, stream>>>(
        g, points, static_cast<const T*>(p.input), static_cast<const T*>(p.grid),
        static_cast<const T*>(p.grad_output), acc, gg);
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
  if (acc) {
    grid_write_grad_input_kernel<T>
        <<<grid_for(in_numel), kThreads, 0, stream>>>(g, in_numel, acc, gx);
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
}

template <class Fn>
void grid_visit(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace grid_sample_cuda

void cuda_grid_sample(ScalarType dtype, const GridSampleParams& p) {
  grid_sample_cuda::grid_visit(
      dtype, [&](auto tag) { grid_sample_cuda::grid_forward<typename decltype(tag)::type>(p); });
}

void cuda_grid_sample_backward(ScalarType dtype, const GridSampleParams& p) {
  grid_sample_cuda::grid_visit(
      dtype, [&](auto tag) { grid_sample_cuda::grid_backward<typename decltype(tag)::type>(p); });
}

}  // namespace ember::kernels::cuda
