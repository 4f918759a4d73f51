// CUDA kernels of layer_norm / rms_norm (the `layer_norm` and `layer_norm_backward` slots;
// operands in kernels/common/row_norm_params.h). Numerically as the CPU kernels: float32
// accumulators (float64 for double), exact two-pass statistics (mean, then the centred sum of
// squares), biased variance, rstd = 1/sqrt(var + eps).
//
// Rows: a row of up to kWarpRowMax elements gets one warp (8 rows a block, no block barrier);
// a longer one a block of 256 or 512 threads. Both stride over the row and re-read it per pass
// (a 4096-float row is 16 KiB: the re-reads hit L1/L2, the kernel stays bound by one DRAM read
// of x and one write of y). Grids are capped at one wave and loop over the remaining rows.
//
// dw/db are column sums over all rows. To stay deterministic without float atomics, blocks of
// 32 columns x 8 row-threads sum a fixed slice of rows each (grid.y slices when the columns alone
// cannot fill the GPU), fold their 8 row-threads in order through shared memory, and a second
// kernel adds the slices in order. The split depends only on (rows, d, SM count).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/core/half.h"
#include "ember/core/storage.h"
#include "kernels/common/row_norm_params.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/row_reduce.cuh"
#include "src/dispatch/dispatch.h"

namespace ember::kernels::cuda {
namespace {

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Up to 1024 elements a row (32 a lane) a warp does the row alone: no block barriers, and 8 rows
// of a block proceed independently.
constexpr int64_t kWarpRowMax = 1024;
constexpr int kRowsPerWarpBlock = 8;
constexpr int kWarpBlockThreads = kWarpSize * kRowsPerWarpBlock;
constexpr int kMaxRowBlockThreads = 512;
// Column sums: a block covers 32 adjacent columns (one coalesced warp load per row) with 8
// threads down the rows.
constexpr int kColTile = kWarpSize;
constexpr int kColRowThreads = 8;
constexpr int kCombineThreads = 256;

__device__ __forceinline__ float sqrt_acc(float v) { return sqrtf(v); }
__device__ __forceinline__ double sqrt_acc(double v) { return ::sqrt(v); }

template <class T>
struct ForwardArgs {
  using A = acc_t<T>;
  int64_t rows, d;
  bool rms;
  A eps;
  const T* x;
  const T* w;  // may be null
  const T* b;  // may be null
  T* y;
  A* mean;  // null with rms
  A* rstd;
};

template <class T>
struct BackwardArgs {
  using A = acc_t<T>;
  int64_t rows, d;
  bool rms;
  const T* g;
  const T* x;
  const T* w;     // may be null
  const A* mean;  // null with rms
  const A* rstd;
  T* dx;  // each output may be null
  T* dw;
  T* db;
};

// One row of the forward; `red` is the warp or the block that owns the row.
template <class T, class R>
__device__ void forward_row(const ForwardArgs<T>& p, int64_t r, const R& red) {
  using A = acc_t<T>;
  const int64_t d = p.d;
  const T* xr = p.x + r * d;
  T* yr = p.y + r * d;
  const A n = static_cast<A>(d);
  A mu = 0;
  if (!p.rms) {
    A s = 0;
    for (int64_t i = red.tid; i < d; i += red.nthreads) s += static_cast<A>(xr[i]);
    mu = red.sum(s) / n;
  }
  A ss = 0;
  for (int64_t i = red.tid; i < d; i += red.nthreads) {
    const A c = static_cast<A>(xr[i]) - mu;
    ss += c * c;
  }
  const A rs = A(1) / sqrt_acc(red.sum(ss) / n + p.eps);
  if (red.tid == 0) {
    if (p.mean) p.mean[r] = mu;
    p.rstd[r] = rs;
  }
  for (int64_t i = red.tid; i < d; i += red.nthreads) {
    A v = (static_cast<A>(xr[i]) - mu) * rs;
    if (p.w) v *= static_cast<A>(p.w[i]);
    if (p.b) v += static_cast<A>(p.b[i]);
    yr[i] = static_cast<T>(v);
  }
}

// dx of one row, with xhat = (x - mean)·rstd and gw = grad·w:
//   dx = rstd·(gw - mean(gw) - xhat·mean(gw·xhat))   (LayerNorm; RMSNorm drops mean(gw))
template <class T, class R>
__device__ void backward_row(const BackwardArgs<T>& p, int64_t r, const R& red) {
  using A = acc_t<T>;
  const int64_t d = p.d;
  const T* gr = p.g + r * d;
  const T* xr = p.x + r * d;
  T* dxr = p.dx + r * d;
  const A mu = p.mean ? p.mean[r] : A(0), rs = p.rstd[r];
  A s_gx = 0, s_g = 0;
  for (int64_t i = red.tid; i < d; i += red.nthreads) {
    A gw = static_cast<A>(gr[i]);
    if (p.w) gw *= static_cast<A>(p.w[i]);
    s_gx += gw * ((static_cast<A>(xr[i]) - mu) * rs);
    s_g += gw;
  }
  red.sum2(s_gx, s_g);
  const A n = static_cast<A>(d);
  const A k1 = s_gx / n, k2 = p.rms ? A(0) : s_g / n;
  for (int64_t i = red.tid; i < d; i += red.nthreads) {
    A gw = static_cast<A>(gr[i]);
    if (p.w) gw *= static_cast<A>(p.w[i]);
    const A xh = (static_cast<A>(xr[i]) - mu) * rs;
    dxr[i] = static_cast<T>(rs * (gw - k2 - xh * k1));
  }
}

// blockDim (32, kRowsPerWarpBlock): warp threadIdx.y takes rows blockIdx.x·8 + y, then every
// gridDim.x·8-th. A warp's lanes share the row, so its shuffles see all 32 lanes.
template <class T>
__global__ void __launch_bounds__(kWarpBlockThreads) forward_warp_kernel(ForwardArgs<T> p) {
  const WarpRowReduce<acc_t<T>> red{static_cast<int>(threadIdx.x)};
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; r < p.rows;
       r += step)
    forward_row(p, r, red);
}

// blockDim (n): the block takes rows blockIdx.x, then every gridDim.x-th; r is the same for the
// whole block, so the barriers inside red.sum are reached by every thread.
template <class T>
__global__ void __launch_bounds__(kMaxRowBlockThreads) forward_block_kernel(ForwardArgs<T> p) {
  __shared__ acc_t<T> smem[2 * kWarpSize];
  const BlockRowReduce<acc_t<T>> red{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                                     smem};
  for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) forward_row(p, r, red);
}

template <class T>
__global__ void __launch_bounds__(kWarpBlockThreads) backward_warp_kernel(BackwardArgs<T> p) {
  const WarpRowReduce<acc_t<T>> red{static_cast<int>(threadIdx.x)};
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; r < p.rows;
       r += step)
    backward_row(p, r, red);
}

template <class T>
__global__ void __launch_bounds__(kMaxRowBlockThreads) backward_block_kernel(BackwardArgs<T> p) {
  __shared__ acc_t<T> smem[2 * kWarpSize];
  const BlockRowReduce<acc_t<T>> red{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                                     smem};
  for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) backward_row(p, r, red);
}

// blockDim (kColTile, kColRowThreads); grid (column tiles, row slices). Block (bx, by) sums
// rows [by·rows_per_slice, +rows_per_slice) of columns bx·32.. (then every gridDim.x·32-th
// tile): thread (tx, ty) takes rows ty, ty + 8, ... of column tx, and the 8 partial sums are
// added in ty order. With one slice the block writes dw/db; otherwise slice by's sums go to row
// by of the workspaces ws_w/ws_b (slices × d accumulators; null where dw/db is not wanted).
template <class T>
__global__ void __launch_bounds__(kColTile* kColRowThreads)
    column_sums_kernel(BackwardArgs<T> p, int64_t rows_per_slice, acc_t<T>* ws_w, acc_t<T>* ws_b) {
  using A = acc_t<T>;
  __shared__ A part_w[kColRowThreads][kColTile];
  __shared__ A part_b[kColRowThreads][kColTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool to_workspace = gridDim.y > 1;
  const int64_t d = p.d;
  const int64_t r_begin = static_cast<int64_t>(blockIdx.y) * rows_per_slice;
  const int64_t r_end = min(p.rows, r_begin + rows_per_slice);
  // c0 depends on the block only, so every thread runs the same trips and meets the barriers.
  for (int64_t c0 = static_cast<int64_t>(blockIdx.x) * kColTile; c0 < d;
       c0 += static_cast<int64_t>(gridDim.x) * kColTile) {
    const int64_t c = c0 + tx;
    A sw = 0, sb = 0;
    if (c < d) {
      for (int64_t r = r_begin + ty; r < r_end; r += kColRowThreads) {
        const A g = static_cast<A>(p.g[r * d + c]);
        if (p.dw) {
          const A mu = p.mean ? p.mean[r] : A(0);
          sw += g * ((static_cast<A>(p.x[r * d + c]) - mu) * p.rstd[r]);
        }
        sb += g;
      }
    }
    part_w[ty][tx] = sw;
    part_b[ty][tx] = sb;
    __syncthreads();
    if (ty == 0 && c < d) {
      A tw = 0, tb = 0;
#pragma unroll
      for (int k = 0; k < kColRowThreads; ++k) {
        tw += part_w[k][tx];
        tb += part_b[k][tx];
      }
      const int64_t o = static_cast<int64_t>(blockIdx.y) * d + c;
      if (p.dw) {
        if (to_workspace)
          ws_w[o] = tw;
        else
          p.dw[c] = static_cast<T>(tw);
      }
      if (p.db) {
        if (to_workspace)
          ws_b[o] = tb;
        else
          p.db[c] = static_cast<T>(tb);
      }
    }
    __syncthreads();  // part_w/part_b are rewritten by the next tile
  }
}

// dw[c] / db[c] = the `slices` partial sums of column c, added in slice order.
template <class T>
__global__ void __launch_bounds__(kCombineThreads)
    column_combine_kernel(int64_t d, int64_t slices, const acc_t<T>* ws_w, const acc_t<T>* ws_b,
                          T* dw, T* db) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < d; c += step) {
    if (dw) {
      A s = 0;
      for (int64_t k = 0; k < slices; ++k) s += ws_w[k * d + c];
      dw[c] = static_cast<T>(s);
    }
    if (db) {
      A s = 0;
      for (int64_t k = 0; k < slices; ++k) s += ws_b[k * d + c];
      db[c] = static_cast<T>(s);
    }
  }
}

// Blocks of `threads` for `work_blocks` blocks of work: at most one wave (2048 resident threads
// per SM on sm_90), the kernels loop over the rest.
unsigned wave_grid(int64_t work_blocks, int threads) {
  const int64_t cap = static_cast<int64_t>(cuda_detail::sm_count()) * (2048 / threads);
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(work_blocks, cap)));
}

// 256 threads for rows up to 4096 elements (<= 16 a thread), 512 beyond.
int row_block_threads(int64_t d) { return d <= 4096 ? 256 : kMaxRowBlockThreads; }

template <class T>
void forward(const RowNormParams& q) {
  using A = acc_t<T>;
  if (q.rows <= 0 || q.d <= 0) return;
  const ForwardArgs<T> p{q.rows,
                         q.d,
                         q.rms,
                         static_cast<A>(q.eps),
                         static_cast<const T*>(q.x),
                         static_cast<const T*>(q.w),
                         static_cast<const T*>(q.b),
                         static_cast<T*>(q.y),
                         static_cast<A*>(q.mean),
                         static_cast<A*>(q.rstd)};
  cudaStream_t stream = cuda_detail::current_stream();
  if (q.d <= kWarpRowMax) {
    const int64_t blocks = (q.rows + kRowsPerWarpBlock - 1) / kRowsPerWarpBlock;
    forward_warp_kernel<T>
        <<<wave_grid(blocks, kWarpBlockThreads), dim3(kWarpSize, kRowsPerWarpBlock), 0, stream>>>(
            p);
  } else {
    const int threads = row_block_threads(q.d);
    forward_block_kernel<T><<<wave_grid(q.rows, threads), threads, 0, stream>>>(p);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// dw/db: column sums over the rows (see the top of the file). rows > 0, d > 0.
template <class T>
void column_sums(const BackwardArgs<T>& p, cudaStream_t stream) {
  using A = acc_t<T>;
  constexpr int kThreads = kColTile * kColRowThreads;
  const int64_t tiles = (p.d + kColTile - 1) / kColTile;
  // Slices only when the column tiles leave the GPU short of one wave, and each slice keeps at
  // least 64 rows (8 per thread), so the second pass stays small: slices·tiles <= one wave.
  const int64_t wave = static_cast<int64_t>(cuda_detail::sm_count()) * (2048 / kThreads);
  int64_t slices = tiles >= wave ? 1 : (wave + tiles - 1) / tiles;
  slices = std::max<int64_t>(1, std::min({slices, (p.rows + 63) / 64, int64_t{65535}}));
  const int64_t rows_per_slice = (p.rows + slices - 1) / slices;
  slices = (p.rows + rows_per_slice - 1) / rows_per_slice;  // no empty slice
  const dim3 block(kColTile, kColRowThreads);
  const dim3 grid(wave_grid(tiles, kThreads), static_cast<unsigned>(slices));
  if (slices == 1) {
    column_sums_kernel<T><<<grid, block, 0, stream>>>(p, rows_per_slice, nullptr, nullptr);
    EMBER_CUDA_CHECK(cudaGetLastError());
    return;
  }
  const int64_t per_output = slices * p.d;
  const size_t bytes =
      static_cast<size_t>(per_output) * sizeof(A) * ((p.dw ? 1 : 0) + (p.db ? 1 : 0));
  // Back to the cache right after the launches; stream order keeps it valid until both have run.
  DataPtr ws = get_allocator(kCUDA)->allocate(bytes);
  struct Release {
    DataPtr& p;
    ~Release() { p.deleter(p.ptr, p.ctx); }
  } release{ws};
  A* ws_w = p.dw ? static_cast<A*>(ws.ptr) : nullptr;
  A* ws_b = p.db ? static_cast<A*>(ws.ptr) + (p.dw ? per_output : 0) : nullptr;
  column_sums_kernel<T><<<grid, block, 0, stream>>>(p, rows_per_slice, ws_w, ws_b);
  EMBER_CUDA_CHECK(cudaGetLastError());
  const int64_t combine_blocks = (p.d + kCombineThreads - 1) / kCombineThreads;
  column_combine_kernel<T>
      <<<wave_grid(combine_blocks, kCombineThreads), kCombineThreads, 0, stream>>>(
          p.d, slices, ws_w, ws_b, p.dw, p.db);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void backward(const RowNormBackwardParams& q) {
  using A = acc_t<T>;
  if (q.d <= 0) return;
  cudaStream_t stream = cuda_detail::current_stream();
  if (q.rows <= 0) {
    // Sums over no rows: zeros (all-zero bits are 0.0 in every float dtype).
    const size_t bytes = static_cast<size_t>(q.d) * sizeof(T);
    if (q.dw) EMBER_CUDA_CHECK(cudaMemsetAsync(q.dw, 0, bytes, stream));
    if (q.db) EMBER_CUDA_CHECK(cudaMemsetAsync(q.db, 0, bytes, stream));
    return;
  }
  const BackwardArgs<T> p{q.rows,
                          q.d,
                          q.rms,
                          static_cast<const T*>(q.grad),
                          static_cast<const T*>(q.x),
                          static_cast<const T*>(q.w),
                          static_cast<const A*>(q.mean),
                          static_cast<const A*>(q.rstd),
                          static_cast<T*>(q.dx),
                          static_cast<T*>(q.dw),
                          static_cast<T*>(q.db)};
  if (p.dx) {
    if (q.d <= kWarpRowMax) {
      const int64_t blocks = (q.rows + kRowsPerWarpBlock - 1) / kRowsPerWarpBlock;
      backward_warp_kernel<T>
          <<<wave_grid(blocks, kWarpBlockThreads), dim3(kWarpSize, kRowsPerWarpBlock), 0, stream>>>(
              p);
    } else {
      const int threads = row_block_threads(q.d);
      backward_block_kernel<T><<<wave_grid(q.rows, threads), threads, 0, stream>>>(p);
    }
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
  if (p.dw || p.db) column_sums(p, stream);
}

template <class Fn>
void visit_norm_dtype(ScalarType dtype, Fn&& fn) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) fn(tag);
  });
}

void cuda_row_norm_forward(ScalarType dtype, const RowNormParams& p) {
  visit_norm_dtype(dtype, [&](auto tag) { forward<typename decltype(tag)::type>(p); });
}

void cuda_row_norm_backward(ScalarType dtype, const RowNormBackwardParams& p) {
  visit_norm_dtype(dtype, [&](auto tag) { backward<typename decltype(tag)::type>(p); });
}

}  // namespace
}  // namespace ember::kernels::cuda

namespace ember::cuda_detail {

void register_cuda_norm_kernels() {
  const DtypeMask dtypes =
      dtype_bit(kFloat) | dtype_bit(kDouble) | dtype_bit(kHalf) | dtype_bit(kBFloat16);
  register_kernel<OpId::layer_norm>(kCUDA, &kernels::cuda::cuda_row_norm_forward, dtypes);
  register_kernel<OpId::layer_norm_backward>(kCUDA, &kernels::cuda::cuda_row_norm_backward, dtypes);
}

}  // namespace ember::cuda_detail
