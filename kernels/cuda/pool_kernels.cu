// CUDA kernels of the pool family (the rows of include/ember/ops/op_table_pool.h; operands in
// kernels/common/pool_params.h), numerically as the CPU loops of kernels/cpu/pool_kernels.cpp:
// float32 accumulators for 16-bit and float32 tensors, float64 for double, the same window
// arithmetic, PyTorch's max rule (a strictly greater value or a NaN takes over) and the same
// divisors. Own kernels rather than cuDNN's pooling: cuDNN has no indices, no dilation and no
// adaptive windows, and one kernel here covers them all, in any layout.
//
// Work split: one thread per output element (forward, fractional, gather) or per input element
// (avg_pool_backward), in grid-stride loops with 64-bit indices. When an operand is channels-last
// (channel stride 1), consecutive threads take consecutive channels, so loads and stores coalesce;
// otherwise they take consecutive positions of one (n, c) plane.
//
// avg_pool_backward gathers instead of scattering: each input element finds the windows that
// cover it and adds their gradients in the CPU's order (output positions ascending), so it needs
// no atomics and gives the CPU's sums bit for bit. pool_scatter only has the indices (not the
// windows), so it adds with atomics (as PyTorch's CUDA unpooling does): with repeated indices (max
// pooling's overlapping windows) the order of the adds, and the last bits of a float sum, may
// change from run to run; 16-bit values are added in a float32 workspace and rounded once, as the
// CPU does. With `assign`, repeated indices keep an arbitrary one of their values (PyTorch's CUDA
// max_unpool too).
//
// PoolIndexParams' invalid-index report is in host memory: the kernels record the first invalid
// index they meet in a device flag, copied back (one stream synchronisation) after the launch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "ember/core/half.h"
#include "ember/core/storage.h"
#include "kernels/common/pool_params.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"

namespace ember::kernels::cuda {
namespace {

constexpr int kPoolThreads = 256;
constexpr int kPoolBlocksPerSm = 2048 / kPoolThreads;  // one full wave on sm_90

// Blocks for `items` threads of work: at most one wave, the grid-stride loops do the rest.
unsigned pool_grid(int64_t items) {
  const int64_t cap = static_cast<int64_t>(cuda_detail::sm_count()) * kPoolBlocksPerSm;
  const int64_t blocks = (items + kPoolThreads - 1) / kPoolThreads;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

__device__ __forceinline__ int64_t pool_min(int64_t a, int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ int64_t pool_max(int64_t a, int64_t b) { return a > b ? a : b; }

__device__ __forceinline__ int64_t pool_first_thread() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t pool_thread_step() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// ---- geometry (the CPU's pool_taps and helpers, on the device) ----

// The in-range taps of one window along one dim: begin, begin + step, ... < end; `padded` is the
// window's length counted over the zero padding (count_include_pad's divisor factor).
struct PoolTaps {
  int64_t begin, end, step, padded;
};

__device__ __forceinline__ PoolTaps pool_window_taps(const PoolParams& p, int i, int64_t o) {
  const int64_t in = p.in.size[i];
  if (p.adaptive) {
    const int64_t out = p.out.size[i];
    const int64_t b = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
    return {b, e, 1, e - b};
  }
  const int64_t s = o * p.stride[i] - p.pad[i], d = p.dilation[i];
  const int64_t padded = pool_min(s + p.kernel[i], in + p.pad[i]) - s;
  int64_t b = s;
  if (b < 0) b += ((-b + d - 1) / d) * d;
  const int64_t e = pool_min(s + (p.kernel[i] - 1) * d + 1, in);
  return {b, e, d, padded};
}

__device__ __forceinline__ int64_t pool_tap_count(const PoolTaps& t) {
  return t.end > t.begin ? (t.end - t.begin + t.step - 1) / t.step : 0;
}

// PyTorch's avg_pool divisor (adaptive windows divide by their own length).
__device__ __forceinline__ int64_t pool_avg_divisor(const PoolParams& p, const PoolTaps& td,
                                                    const PoolTaps& th, const PoolTaps& tw) {
  if (p.divisor_override != 0 && !p.adaptive) return p.divisor_override;
  if (p.adaptive || !p.count_include_pad)
    return pool_tap_count(td) * pool_tap_count(th) * pool_tap_count(tw);
  return td.padded * th.padded * tw.padded;
}

// One element of an (N, C, D, H, W) iteration space: its sample, channel and spatial position.
struct PoolElem {
  int64_t n, c, d, h, w;
};

// Element k of batch × channels × (D·H·W) positions: channels innermost when `channels_inner`
// (a channels-last operand: neighbouring threads touch neighbouring addresses), else positions.
__device__ __forceinline__ PoolElem pool_elem(int64_t k, int64_t channels, const int64_t* size,
                                              bool channels_inner) {
  const int64_t vol = size[0] * size[1] * size[2];
  PoolElem e;
  int64_t pos;
  if (channels_inner) {
    e.c = k % channels;
    const int64_t q = k / channels;
    pos = q % vol;
    e.n = q / vol;
  } else {
    pos = k % vol;
    const int64_t plane = k / vol;
    e.c = plane % channels;
    e.n = plane / channels;
  }
  e.w = pos % size[2];
  const int64_t dh = pos / size[2];
  e.h = dh % size[1];
  e.d = dh / size[1];
  return e;
}

__device__ __forceinline__ int64_t pool_offset(const PoolGeometry& g, int64_t n, int64_t c,
                                               int64_t d, int64_t h, int64_t w) {
  return n * g.stride_n + c * g.stride_c + d * g.stride[0] + h * g.stride[1] + w * g.stride[2];
}

// Whether neighbouring threads should take neighbouring channels (as the CPU picks its loop).
bool pool_channels_inner(int64_t channels, const PoolGeometry& g) {
  return channels > 1 && g.stride_c == 1;
}

template <class A>
__device__ __forceinline__ bool pool_is_nan(A v) {
  return v != v;
}

// ---- max_pool / avg_pool ----

template <class T, bool kMax>
__global__ void __launch_bounds__(kPoolThreads)
    pool_forward_kernel(PoolParams p, int64_t total, bool channels_inner) {
  using A = opmath_t<T>;
  const T* x = static_cast<const T*>(p.input);
  T* y = static_cast<T*>(p.output);
  const int64_t in_h = p.in.size[1], in_w = p.in.size[2];
  for (int64_t k = pool_first_thread(); k < total; k += pool_thread_step()) {
    const PoolElem o = pool_elem(k, p.channels, p.out.size, channels_inner);
    const PoolTaps td = pool_window_taps(p, 0, o.d);
    const PoolTaps th = pool_window_taps(p, 1, o.h);
    const PoolTaps tw = pool_window_taps(p, 2, o.w);
    const T* xp = x + o.n * p.in.stride_n + o.c * p.in.stride_c;
    A acc = kMax ? -std::numeric_limits<A>::infinity() : A(0);
    int64_t best = (td.begin * in_h + th.begin) * in_w + tw.begin;
    for (int64_t d = td.begin; d < td.end; d += td.step)
      for (int64_t h = th.begin; h < th.end; h += th.step) {
        const T* xr = xp + d * p.in.stride[0] + h * p.in.stride[1];
        const int64_t flat_row = (d * in_h + h) * in_w;
        for (int64_t w = tw.begin; w < tw.end; w += tw.step) {
          const A v = static_cast<A>(xr[w * p.in.stride[2]]);
          if constexpr (kMax) {
            if (v > acc || pool_is_nan(v)) {
              acc = v;
              best = flat_row + w;
            }
          } else {
            acc += v;
          }
        }
      }
    const int64_t yo = pool_offset(p.out, o.n, o.c, o.d, o.h, o.w);
    if constexpr (kMax) {
      y[yo] = static_cast<T>(acc);
      if (p.indices) p.indices[yo] = best;
    } else {
      const int64_t div = pool_avg_divisor(p, td, th, tw);
      // A window wholly in the padding (possible with ceil_mode) averages nothing: 0, as PyTorch.
      const bool none =
          div == 0 || pool_tap_count(td) * pool_tap_count(th) * pool_tap_count(tw) == 0;
      y[yo] = static_cast<T>(none ? A(0) : acc / static_cast<A>(div));
    }
  }
}

template <class T, bool kMax>
void pool_forward(const PoolParams& p) {
  const int64_t total = p.batch * p.channels * p.out.size[0] * p.out.size[1] * p.out.size[2];
  if (total == 0) return;
  pool_forward_kernel<T, kMax>
      <<<pool_grid(total), kPoolThreads, 0, cuda_detail::current_stream()>>>(
          p, total, pool_channels_inner(p.channels, p.out));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// ---- avg_pool_backward (a gather over the covering windows) ----

// floor(a / b) for b > 0.
__device__ __forceinline__ int64_t pool_floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The output positions along dim i whose windows may hold input position `x`: [lo, hi), a
// superset (each candidate is checked against its taps).
__device__ __forceinline__ void pool_candidates(const PoolParams& p, int i, int64_t x, int64_t* lo,
                                                int64_t* hi) {
  const int64_t in = p.in.size[i], out = p.out.size[i];
  int64_t l, h;
  if (p.adaptive) {
    // Window o is [floor(o·in/out), ceil((o+1)·in/out)): o in [floor(x·out/in),
    // ceil((x+1)·out/in)); widened by one each side against rounding slips.
    l = (x * out) / in - 1;
    h = ((x + 1) * out + in - 1) / in + 1;
  } else {
    // Window o spans [o·s - pad, o·s - pad + (k-1)·dil]: o in [ceil((x + pad - (k-1)·dil) / s),
    // floor((x + pad) / s)].
    const int64_t s = p.stride[i], span = (p.kernel[i] - 1) * p.dilation[i];
    l = -pool_floor_div(-(x + p.pad[i] - span), s);
    h = pool_floor_div(x + p.pad[i], s) + 1;
  }
  *lo = pool_max(l, 0);
  *hi = pool_min(h, out);
}

__device__ __forceinline__ bool pool_tap_holds(const PoolTaps& t, int64_t x) {
  return x >= t.begin && x < t.end && (x - t.begin) % t.step == 0;
}

template <class T>
__global__ void __launch_bounds__(kPoolThreads)
    avg_pool_backward_kernel(PoolParams p, int64_t total, bool channels_inner) {
  using A = opmath_t<T>;
  T* gx = static_cast<T*>(p.input);
  const T* gy = static_cast<const T*>(p.output);
  for (int64_t k = pool_first_thread(); k < total; k += pool_thread_step()) {
    const PoolElem e = pool_elem(k, p.channels, p.in.size, channels_inner);
    int64_t d_lo, d_hi, h_lo, h_hi, w_lo, w_hi;
    pool_candidates(p, 0, e.d, &d_lo, &d_hi);
    pool_candidates(p, 1, e.h, &h_lo, &h_hi);
    pool_candidates(p, 2, e.w, &w_lo, &w_hi);
    const T* gyp = gy + e.n * p.out.stride_n + e.c * p.out.stride_c;
    A acc = 0;
    // Output positions ascending, as the CPU visits them: the same sum, the same order.
    for (int64_t od = d_lo; od < d_hi; ++od) {
      const PoolTaps td = pool_window_taps(p, 0, od);
      if (!pool_tap_holds(td, e.d)) continue;
      for (int64_t oh = h_lo; oh < h_hi; ++oh) {
        const PoolTaps th = pool_window_taps(p, 1, oh);
        if (!pool_tap_holds(th, e.h)) continue;
        for (int64_t ow = w_lo; ow < w_hi; ++ow) {
          const PoolTaps tw = pool_window_taps(p, 2, ow);
          if (!pool_tap_holds(tw, e.w)) continue;
          const int64_t div = pool_avg_divisor(p, td, th, tw);
          if (div == 0) continue;
          const A g = static_cast<A>(
              gyp[od * p.out.stride[0] + oh * p.out.stride[1] + ow * p.out.stride[2]]);
          acc += g / static_cast<A>(div);
        }
      }
    }
    gx[pool_offset(p.in, e.n, e.c, e.d, e.h, e.w)] = static_cast<T>(acc);
  }
}

template <class T>
void avg_pool_backward(const PoolParams& p) {
  const int64_t total = p.batch * p.channels * p.in.size[0] * p.in.size[1] * p.in.size[2];
  if (total == 0) return;
  avg_pool_backward_kernel<T><<<pool_grid(total), kPoolThreads, 0, cuda_detail::current_stream()>>>(
      p, total, pool_channels_inner(p.channels, p.in));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// ---- pool_scatter / pool_gather ----

// The device side of PoolIndexParams' invalid-index report.
struct PoolInvalidFlag {
  unsigned int seen;
  int64_t value;
};

__device__ __forceinline__ void pool_report_invalid(PoolInvalidFlag* flag, int64_t idx) {
  if (flag && atomicCAS(&flag->seen, 0u, 1u) == 0u) flag->value = idx;
}

// A device allocation from the caching allocator, handed back when the scope ends (stream order
// keeps it valid until the kernels queued before then have run).
class PoolDeviceBuffer {
 public:
  explicit PoolDeviceBuffer(size_t bytes) : ptr_(get_allocator(kCUDA)->allocate(bytes)) {}
  ~PoolDeviceBuffer() { ptr_.deleter(ptr_.ptr, ptr_.ctx); }
  PoolDeviceBuffer(const PoolDeviceBuffer&) = delete;
  PoolDeviceBuffer& operator=(const PoolDeviceBuffer&) = delete;
  template <class U>
  U* as() const {
    return static_cast<U*>(ptr_.ptr);
  }

 private:
  DataPtr ptr_;
};

__device__ __forceinline__ void atomic_add_pool(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add_pool(double* p, double v) { atomicAdd(p, v); }

// Every element of `large` set to zero (the scatter adds into it, or leaves it where no index
// points).
template <class T>
__global__ void __launch_bounds__(kPoolThreads)
    pool_zero_kernel(PoolIndexParams p, int64_t total, bool channels_inner) {
  T* large = static_cast<T*>(p.large_data);
  for (int64_t k = pool_first_thread(); k < total; k += pool_thread_step()) {
    const PoolElem e = pool_elem(k, p.channels, p.large.size, channels_inner);
    large[pool_offset(p.large, e.n, e.c, e.d, e.h, e.w)] = static_cast<T>(0.0f);
  }
}

// One thread per element of `small`. kScatter: large[idx] = or += small (into `widened`, a dense
// float32 plane per (n, c), when not null); else small = large[idx].
template <class T, bool kScatter>
__global__ void __launch_bounds__(kPoolThreads)
    pool_index_kernel(PoolIndexParams p, int64_t total, int64_t lvol, bool channels_inner,
                      float* widened, PoolInvalidFlag* flag) {
  T* small = static_cast<T*>(p.small_data);
  T* large = static_cast<T*>(p.large_data);
  const int64_t lw = p.large.size[2], lhw = p.large.size[1] * p.large.size[2];
  for (int64_t k = pool_first_thread(); k < total; k += pool_thread_step()) {
    const PoolElem e = pool_elem(k, p.channels, p.small.size, channels_inner);
    const int64_t so = pool_offset(p.small, e.n, e.c, e.d, e.h, e.w);
    const int64_t idx = p.indices[so];
    if (idx < 0 || idx >= lvol) {
      pool_report_invalid(flag, idx);
      continue;
    }
    const int64_t lo =
        pool_offset(p.large, e.n, e.c, idx / lhw, (idx / lw) % p.large.size[1], idx % lw);
    if constexpr (kScatter) {
      if (p.assign) {
        large[lo] = small[so];
      } else if (widened) {
        const int64_t plane = e.n * p.channels + e.c;
        atomic_add_pool(widened + plane * lvol + idx, static_cast<float>(small[so]));
      } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        atomic_add_pool(large + lo, small[so]);
      }
    } else {
      small[so] = large[lo];
    }
  }
}

// large = the float32 sums of the workspace, rounded once.
template <class T>
__global__ void __launch_bounds__(kPoolThreads)
    pool_narrow_kernel(PoolIndexParams p, int64_t total, int64_t lvol, bool channels_inner,
                       const float* widened) {
  T* large = static_cast<T*>(p.large_data);
  const int64_t lw = p.large.size[2];
  for (int64_t k = pool_first_thread(); k < total; k += pool_thread_step()) {
    const PoolElem e = pool_elem(k, p.channels, p.large.size, channels_inner);
    const int64_t pos = (e.d * p.large.size[1] + e.h) * lw + e.w;
    large[pool_offset(p.large, e.n, e.c, e.d, e.h, e.w)] =
        static_cast<T>(widened[(e.n * p.channels + e.c) * lvol + pos]);
  }
}

template <class T, bool kScatter>
void pool_index(const PoolIndexParams& p) {
  cudaStream_t stream = cuda_detail::current_stream();
  const int64_t planes = p.batch * p.channels;
  const int64_t svol = p.small.size[0] * p.small.size[1] * p.small.size[2];
  const int64_t lvol = p.large.size[0] * p.large.size[1] * p.large.size[2];
  const int64_t small_total = planes * svol, large_total = planes * lvol;
  const bool small_inner = pool_channels_inner(p.channels, p.small);
  const bool large_inner = pool_channels_inner(p.channels, p.large);
  constexpr bool kNarrow = !std::is_same_v<opmath_t<T>, T>;
  const bool widen = kScatter && kNarrow && !p.assign && small_total > 0 && large_total > 0;
  std::optional<PoolDeviceBuffer> workspace;
  if (widen) {
    workspace.emplace(static_cast<size_t>(large_total) * sizeof(float));
    EMBER_CUDA_CHECK(cudaMemsetAsync(workspace->as<float>(), 0,
                                     static_cast<size_t>(large_total) * sizeof(float), stream));
  } else if (kScatter && large_total > 0) {
    pool_zero_kernel<T>
        <<<pool_grid(large_total), kPoolThreads, 0, stream>>>(p, large_total, large_inner);
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
  if (small_total == 0) return;
  const bool report = p.invalid_index || p.has_invalid_index;
  std::optional<PoolDeviceBuffer> flag;
  if (report) {
    flag.emplace(sizeof(PoolInvalidFlag));
    EMBER_CUDA_CHECK(
        cudaMemsetAsync(flag->as<PoolInvalidFlag>(), 0, sizeof(PoolInvalidFlag), stream));
  }
  pool_index_kernel<T, kScatter><<<pool_grid(small_total), kPoolThreads, 0, stream>>>(
      p, small_total, lvol, small_inner, widen ? workspace->as<float>() : nullptr,
      report ? flag->as<PoolInvalidFlag>() : nullptr);
  EMBER_CUDA_CHECK(cudaGetLastError());
  if (widen) {
    pool_narrow_kernel<T><<<pool_grid(large_total), kPoolThreads, 0, stream>>>(
        p, large_total, lvol, large_inner, workspace->as<float>());
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
  if (report) {
    PoolInvalidFlag host{0, 0};
    EMBER_CUDA_CHECK(cudaMemcpyAsync(&host, flag->as<PoolInvalidFlag>(), sizeof(host),
                                     cudaMemcpyDeviceToHost, stream));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host.seen) {
      if (p.invalid_index) *p.invalid_index = host.value;
      if (p.has_invalid_index) *p.has_invalid_index = true;
    }
  }
}

// ---- fractional_max_pool ----

// Window start `o` of PyTorch's fractional sequence (the CPU's fractional_starts): alpha =
// (in - k) / (out - 1) in the accumulate type, start(o) = int((o + u)·alpha) - int(u·alpha) for
// o < out - 1, and the last window ends flush with the input.
template <class A>
__device__ __forceinline__ int64_t fractional_start(A u, int64_t in, int64_t out, int64_t k,
                                                    int64_t o) {
  if (o == out - 1) return in - k;
  const A alpha = static_cast<A>(in - k) / static_cast<A>(out - 1);
  return static_cast<int64_t>(static_cast<int>((static_cast<A>(o) + u) * alpha) -
                              static_cast<int>(u * alpha));
}

template <class T>
__global__ void __launch_bounds__(kPoolThreads)
    fractional_kernel(FractionalPoolParams p, int64_t total, bool channels_inner) {
  using A = opmath_t<T>;
  const T* x = static_cast<const T*>(p.input);
  const T* u = static_cast<const T*>(p.samples);
  T* y = static_cast<T*>(p.output);
  const int64_t in_h = p.in.size[1], in_w = p.in.size[2];
  for (int64_t k = pool_first_thread(); k < total; k += pool_thread_step()) {
    const PoolElem o = pool_elem(k, p.channels, p.out.size, channels_inner);
    const T* up = u + (o.n * p.channels + o.c) * p.nd;
    // 2-d: sample 0 drives W and sample 1 H (PyTorch's order), D is a single position; 3-d: the
    // samples drive D, H, W in order. H takes sample 1 either way.
    const int s_w = p.nd == 3 ? 2 : 0;
    const int64_t d0 = p.nd == 3 ? fractional_start(static_cast<A>(up[0]), p.in.size[0],
                                                    p.out.size[0], p.kernel[0], o.d)
                                 : 0;
    const int64_t h0 =
        fractional_start(static_cast<A>(up[1]), p.in.size[1], p.out.size[1], p.kernel[1], o.h);
    const int64_t w0 =
        fractional_start(static_cast<A>(up[s_w]), p.in.size[2], p.out.size[2], p.kernel[2], o.w);
    const T* xp = x + o.n * p.in.stride_n + o.c * p.in.stride_c;
    A best = -std::numeric_limits<A>::infinity();
    int64_t best_i = (d0 * in_h + h0) * in_w + w0;
    for (int64_t d = d0; d < d0 + p.kernel[0]; ++d)
      for (int64_t h = h0; h < h0 + p.kernel[1]; ++h)
        for (int64_t w = w0; w < w0 + p.kernel[2]; ++w) {
          const A v =
              static_cast<A>(xp[d * p.in.stride[0] + h * p.in.stride[1] + w * p.in.stride[2]]);
          if (v > best || pool_is_nan(v)) {
            best = v;
            best_i = (d * in_h + h) * in_w + w;
          }
        }
    const int64_t yo = pool_offset(p.out, o.n, o.c, o.d, o.h, o.w);
    y[yo] = static_cast<T>(best);
    p.indices[yo] = best_i;
  }
}

template <class T>
void fractional(const FractionalPoolParams& p) {
  const int64_t total = p.batch * p.channels * p.out.size[0] * p.out.size[1] * p.out.size[2];
  if (total == 0) return;
  fractional_kernel<T><<<pool_grid(total), kPoolThreads, 0, cuda_detail::current_stream()>>>(
      p, total, pool_channels_inner(p.channels, p.out));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class Fn>
void visit_pool_dtype(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

}  // namespace

void cuda_max_pool(ScalarType dtype, const PoolParams& p) {
  visit_pool_dtype(dtype, [&](auto tag) { pool_forward<typename decltype(tag)::type, true>(p); });
}
void cuda_avg_pool(ScalarType dtype, const PoolParams& p) {
  visit_pool_dtype(dtype, [&](auto tag) { pool_forward<typename decltype(tag)::type, false>(p); });
}
void cuda_avg_pool_backward(ScalarType dtype, const PoolParams& p) {
  visit_pool_dtype(dtype, [&](auto tag) { avg_pool_backward<typename decltype(tag)::type>(p); });
}
void cuda_pool_scatter(ScalarType dtype, const PoolIndexParams& p) {
  visit_pool_dtype(dtype, [&](auto tag) { pool_index<typename decltype(tag)::type, true>(p); });
}
void cuda_pool_gather(ScalarType dtype, const PoolIndexParams& p) {
  visit_pool_dtype(dtype, [&](auto tag) { pool_index<typename decltype(tag)::type, false>(p); });
}
void cuda_fractional_max_pool(ScalarType dtype, const FractionalPoolParams& p) {
  visit_pool_dtype(dtype, [&](auto tag) { fractional<typename decltype(tag)::type>(p); });
}

}  // namespace ember::kernels::cuda
