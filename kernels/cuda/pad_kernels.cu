// CUDA kernels of the pad family's slots (operands in kernels/common/pad_params.h), the mirror of
// kernels/cpu/pad_kernels.cpp: padding as a gather through per-dim index maps (pad_nd) and its
// scatter-add (pad_nd_backward), and im2col / col2im (F::unfold / F::fold).
//
// Layout: every kernel walks rows of its output. A block of 256 threads is tx x ty: tx (a power of
// two, at most 256) threads along a row, coalesced, and ty rows side by side; the grid is capped
// at one wave and loops over the remaining rows. The row's decomposition (div/mod in 64 bits)
// is paid once per row, not per element.
//
// Determinism: the gathers (pad_nd, im2col) and col2im write each element once, col2im summing its
// contributions in the CPU's order (kernel row, then kernel column), so float32/float64 results
// equal the CPU's bit for bit. pad_nd_backward scatters with float/double atomics, as PyTorch's
// CUDA padding backward does: an input position receives up to three gradients (reflect,
// circular) or a whole pad's worth (replicate's edges), and the order of those adds may change
// from run to run. A deterministic gather would need the inverse of each map, which lives in
// device memory here (built on the host by src/ops/nn_pad.cpp and copied over).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "ember/core/half.h"
#include "kernels/common/pad_params.h"
#include "kernels/common/visit.h"
#include "kernels/cuda/context.h"

namespace ember::kernels::cuda {
namespace pad_cuda {

constexpr int kPadBlockThreads = 256;
constexpr int kPadBlocksPerSm = 2048 / kPadBlockThreads;  // one full wave on sm_90

// tx x ty threads a block over `rows` rows of `cols` elements (see the file comment).
struct PadRowPlan {
  dim3 block;
  unsigned grid;
};

PadRowPlan pad_row_plan(int64_t rows, int64_t cols) {
  unsigned tx = 1;
  while (tx < static_cast<unsigned>(kPadBlockThreads) && static_cast<int64_t>(tx) < cols) tx *= 2;
  const unsigned ty = kPadBlockThreads / tx;
  int64_t blocks = (rows + ty - 1) / ty;
  const int64_t cap = static_cast<int64_t>(cuda_detail::sm_count()) * kPadBlocksPerSm;
  blocks = std::max<int64_t>(1, std::min(blocks, cap));
  return {dim3(tx, ty), static_cast<unsigned>(blocks)};
}

__device__ __forceinline__ int64_t pad_first_row() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
}
__device__ __forceinline__ int64_t pad_row_step() {
  return static_cast<int64_t>(gridDim.x) * blockDim.y;
}

// The padded dims as exactly three (leading ones of size 1 when nd < 3, with no map: their only
// position reads position 0), so every kernel is 3-deep, as the CPU's.
struct PadDims3 {
  int64_t in[3], out[3];
  const int64_t* map[3];
};

PadDims3 pad_dims3(const PadIndexParams& p) {
  PadDims3 g{};
  const int lead = 3 - p.nd;
  for (int d = 0; d < 3; ++d) {
    if (d < lead) {
      g.in[d] = g.out[d] = 1;
      g.map[d] = nullptr;
    } else {
      g.in[d] = p.in_size[d - lead];
      g.out[d] = p.out_size[d - lead];
      g.map[d] = p.map[d - lead];
    }
  }
  return g;
}

__device__ __forceinline__ int64_t pad_map_at(const int64_t* map, int64_t o) {
  return map ? map[o] : 0;
}

// Output row r = (b, o0, o1) of the padded tensor reads input row (b, map0[o0], map1[o1]); its
// element offset.
__device__ __forceinline__ int64_t pad_src_row(const PadDims3& g, int64_t r) {
  const int64_t o1 = r % g.out[1], q = r / g.out[1];
  const int64_t o0 = q % g.out[0], b = q / g.out[0];
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  return b * in_plane + (pad_map_at(g.map[0], o0) * g.in[1] + pad_map_at(g.map[1], o1)) * g.in[2];
}

// E: an unsigned type of the element's size (the gather only moves bytes).
template <class E>
__global__ void __launch_bounds__(kPadBlockThreads)
    pad_gather_kernel(PadDims3 g, int64_t rows, const E* __restrict__ src, E* __restrict__ dst) {
  const int64_t cols = g.out[2];
  const int64_t* m2 = g.map[2];
  for (int64_t r = pad_first_row(); r < rows; r += pad_row_step()) {
    const E* s = src + pad_src_row(g, r);
    E* o = dst + r * cols;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) o[c] = s[m2[c]];
  }
}

// dst (zeroed) += src along the maps; float and double have hardware atomic adds on sm_90.
template <class T>
__global__ void __launch_bounds__(kPadBlockThreads)
    pad_scatter_add_kernel(PadDims3 g, int64_t rows, const T* __restrict__ src, T* dst) {
  const int64_t cols = g.out[2];
  const int64_t* m2 = g.map[2];
  for (int64_t r = pad_first_row(); r < rows; r += pad_row_step()) {
    T* d = dst + pad_src_row(g, r);
    const T* s = src + r * cols;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) atomicAdd(d + m2[c], s[c]);
  }
}

template <class E>
void pad_launch_gather(const PadIndexParams& p) {
  const PadDims3 g = pad_dims3(p);
  const int64_t rows = p.outer * g.out[0] * g.out[1];
  const PadRowPlan plan = pad_row_plan(rows, g.out[2]);
  pad_gather_kernel<E><<<plan.grid, plan.block, 0, cuda_detail::current_stream()>>>(
      g, rows, static_cast<const E*>(p.src), static_cast<E*>(p.dst));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void pad_launch_scatter_add(const PadIndexParams& p) {
  const PadDims3 g = pad_dims3(p);
  const int64_t in_numel = p.outer * g.in[0] * g.in[1] * g.in[2];
  cudaStream_t stream = cuda_detail::current_stream();
  // The input's gradient is fully written: positions no output reads (cropped by negative pads)
  // stay zero.
  EMBER_CUDA_CHECK(cudaMemsetAsync(p.dst, 0, static_cast<size_t>(in_numel) * sizeof(T), stream));
  const int64_t rows = p.outer * g.out[0] * g.out[1];
  if (rows * g.out[2] == 0) return;
  const PadRowPlan plan = pad_row_plan(rows, g.out[2]);
  pad_scatter_add_kernel<T><<<plan.grid, plan.block, 0, stream>>>(
      g, rows, static_cast<const T*>(p.src), static_cast<T*>(p.dst));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// ---- im2col / col2im ----

// Cols row r = ((nc·kh + ki)·kw + kj)·out_h + by holds the out_w blocks of block row by for kernel
// element (ki, kj) of plane nc; E moves the element's bytes (0 bits is +0.0 in every float dtype).
template <class E>
__global__ void __launch_bounds__(kPadBlockThreads)
    im2col_kernel(Im2ColParams p, int64_t rows, const E* __restrict__ img, E* __restrict__ cols) {
  const int64_t plane = p.height * p.width;
  for (int64_t r = pad_first_row(); r < rows; r += pad_row_step()) {
    const int64_t by = r % p.out_h, q = r / p.out_h;
    const int64_t kj = q % p.kw, ki = (q / p.kw) % p.kh, nc = q / (p.kw * p.kh);
    const int64_t y = by * p.sh - p.ph + ki * p.dh;
    const bool row_inside = y >= 0 && y < p.height;
    const E* srow = img + nc * plane + (row_inside ? y * p.width : 0);
    E* drow = cols + r * p.out_w;
    for (int64_t bx = threadIdx.x; bx < p.out_w; bx += blockDim.x) {
      const int64_t x = bx * p.sw - p.pw + kj * p.dw;
      drow[bx] = (row_inside && x >= 0 && x < p.width) ? srow[x] : E(0);
    }
  }
}

// Image row r = nc·height + y; each pixel gathers the cols entries that read it, in (ki, kj)
// order as the CPU's scatter adds them. Kernel element ki reads block row by when
// y + ph - ki·dh = by·sh: that offset falls as ki grows, so the first negative one ends the loop.
template <class T>
__global__ void __launch_bounds__(kPadBlockThreads)
    col2im_kernel(Im2ColParams p, int64_t rows, const T* __restrict__ cols, T* __restrict__ img) {
  const int64_t blocks = p.out_h * p.out_w;
  for (int64_t r = pad_first_row(); r < rows; r += pad_row_step()) {
    const int64_t y = r % p.height, nc = r / p.height;
    const T* src = cols + nc * p.kh * p.kw * blocks;
    T* drow = img + r * p.width;
    for (int64_t x = threadIdx.x; x < p.width; x += blockDim.x) {
      T acc = T(0);
      for (int64_t ki = 0; ki < p.kh; ++ki) {
        const int64_t ty = y + p.ph - ki * p.dh;
        if (ty < 0) break;
        if (ty % p.sh != 0) continue;
        const int64_t by = ty / p.sh;
        if (by >= p.out_h) continue;
        for (int64_t kj = 0; kj < p.kw; ++kj) {
          const int64_t tx = x + p.pw - kj * p.dw;
          if (tx < 0) break;
          if (tx % p.sw != 0) continue;
          const int64_t bx = tx / p.sw;
          if (bx >= p.out_w) continue;
          acc += src[(ki * p.kw + kj) * blocks + by * p.out_w + bx];
        }
      }
      drow[x] = acc;
    }
  }
}

template <class E>
void pad_launch_im2col(const Im2ColParams& p) {
  const int64_t rows = p.batch * p.channels * p.kh * p.kw * p.out_h;
  const PadRowPlan plan = pad_row_plan(rows, p.out_w);
  im2col_kernel<E><<<plan.grid, plan.block, 0, cuda_detail::current_stream()>>>(
      p, rows, static_cast<const E*>(p.src), static_cast<E*>(p.dst));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void pad_launch_col2im(const Im2ColParams& p) {
  const int64_t rows = p.batch * p.channels * p.height;
  const PadRowPlan plan = pad_row_plan(rows, p.width);
  col2im_kernel<T><<<plan.grid, plan.block, 0, cuda_detail::current_stream()>>>(
      p, rows, static_cast<const T*>(p.src), static_cast<T*>(p.dst));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace pad_cuda

void cuda_pad_nd(ScalarType dtype, const PadIndexParams& p) {
  using namespace pad_cuda;
  if (p.outer == 0) return;
  for (int d = 0; d < p.nd; ++d)
    if (p.out_size[d] == 0) return;
  switch (element_size(dtype)) {
    case 1:
      return pad_launch_gather<uint8_t>(p);
    case 2:
      return pad_launch_gather<uint16_t>(p);
    case 4:
      return pad_launch_gather<uint32_t>(p);
    default:
      return pad_launch_gather<uint64_t>(p);
  }
}

void cuda_pad_nd_backward(ScalarType dtype, const PadIndexParams& p) {
  if (p.outer == 0) return;
  visit_float_or_double(dtype, [&](auto v) { pad_cuda::pad_launch_scatter_add<decltype(v)>(p); });
}

void cuda_im2col(ScalarType dtype, const Im2ColParams& p) {
  using namespace pad_cuda;
  if (p.batch * p.channels * p.kh * p.kw * p.out_h * p.out_w == 0) return;
  switch (element_size(dtype)) {  // float16/bfloat16, float32, float64
    case 2:
      return pad_launch_im2col<uint16_t>(p);
    case 4:
      return pad_launch_im2col<uint32_t>(p);
    default:
      return pad_launch_im2col<uint64_t>(p);
  }
}

void cuda_col2im(ScalarType dtype, const Im2ColParams& p) {
  if (p.batch * p.channels * p.height * p.width == 0) return;
  visit_float_or_double(dtype, [&](auto v) { pad_cuda::pad_launch_col2im<decltype(v)>(p); });
}

}  // namespace ember::kernels::cuda
