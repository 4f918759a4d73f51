// The index arithmetic of the CUDA kernels, host and device alike: the elementwise kernel's offset
// calculator (loops.cuh) and the reduction's geometry and launch plan (reduce_loops.cuh). No CUDA
// header is needed, so tests/core/cuda_index_math_test.cpp checks all of it on the CPU: the kernels
// themselves only run where there is a GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "ember/core/macros.h"
#include "kernels/common/elementwise_loop.h"

#if defined(__CUDACC__)
#define EMBER_UNROLL _Pragma("unroll")
#else
#define EMBER_UNROLL
#endif

namespace ember::kernels::cuda {

// ---- elementwise: linear index -> byte offset of each operand ----

/// The iteration space of the strided elementwise kernel, passed by value (~650 bytes of kernel
/// parameters).
template <int kN>
struct StridedGeometry {
  int ndim;
  bool index32;  // numel fits in 32 bits: do the div/mod chain in 32-bit arithmetic
  int64_t sizes[kMaxLoopDims];
  int64_t strides[kN][kMaxLoopDims];  // bytes
  char* data[kN];
};

/// Byte offsets of element `linear` (innermost dim fastest) in each of the kN operands.
template <int kN>
EMBER_HOST_DEVICE inline void offsets_of(const StridedGeometry<kN>& g, int64_t linear,
                                         int64_t (&off)[kN]) {
  EMBER_UNROLL
  for (int k = 0; k < kN; ++k) off[k] = 0;
  if (g.ndim == 1) {
    EMBER_UNROLL
    for (int k = 0; k < kN; ++k) off[k] = linear * g.strides[k][0];
    return;
  }
  if (g.index32) {
    uint32_t rem = static_cast<uint32_t>(linear);
    EMBER_UNROLL
    for (int d = 0; d < kMaxLoopDims; ++d) {
      if (d == g.ndim) break;
      const uint32_t size = static_cast<uint32_t>(g.sizes[d]);
      const uint32_t q = rem / size;
      const int64_t idx = rem - q * size;
      rem = q;
      EMBER_UNROLL
      for (int k = 0; k < kN; ++k) off[k] += idx * g.strides[k][d];
    }
  } else {
    int64_t rem = linear;
    EMBER_UNROLL
    for (int d = 0; d < kMaxLoopDims; ++d) {
      if (d == g.ndim) break;
      const int64_t q = rem / g.sizes[d];
      const int64_t idx = rem - q * g.sizes[d];
      rem = q;
      EMBER_UNROLL
      for (int k = 0; k < kN; ++k) off[k] += idx * g.strides[k][d];
    }
  }
}

// ---- reductions: geometry and launch plan ----

constexpr int kReduceThreads = 256;
constexpr int64_t kMaxGridY = 65535;  // gridDim.y limit

/// What the reduction kernels read: the ReduceLoop's geometry plus the launch split (by value,
/// ~700 B).
struct ReduceGeometry {
  int out_ndim, red_ndim;
  int64_t out_sizes[kMaxLoopDims], out_in_strides[kMaxLoopDims], out_strides[kMaxLoopDims];
  int64_t red_sizes[kMaxLoopDims], red_strides[kMaxLoopDims];
  int64_t out_numel, red_numel;
  int64_t chunk;  // reduced positions per grid.y slice
  bool along_x;   // threads along x share one output's range
  const char* in;
  char* out[2];
};

/// Input byte offset and output element offset of output o.
EMBER_HOST_DEVICE inline void output_offsets(const ReduceGeometry& g, int64_t o, int64_t& in_off,
                                             int64_t& out_off) {
  in_off = 0;
  out_off = 0;
  for (int d = 0; d < g.out_ndim; ++d) {
    const int64_t q = o / g.out_sizes[d];
    const int64_t i = o - q * g.out_sizes[d];
    in_off += i * g.out_in_strides[d];
    out_off += i * g.out_strides[d];
    o = q;
  }
}

/// Input byte offset of reduced position r (relative to the output's base).
EMBER_HOST_DEVICE inline int64_t reduced_offset(const ReduceGeometry& g, int64_t r) {
  int64_t off = 0;
  for (int d = 0; d < g.red_ndim; ++d) {
    const int64_t q = r / g.red_sizes[d];
    off += (r - q * g.red_sizes[d]) * g.red_strides[d];
    r = q;
  }
  return off;
}

inline int64_t pow2_ceil(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

/// How reduce_cuda launches: block = along_x ? (lanes, slots) : (slots, lanes), grid =
/// (blocks_x, splits); output o is owned by block o / slots, and each of the `splits` slices of
/// its reduced range holds `chunk` positions (the last one may hold fewer, none holds zero).
struct ReducePlan {
  bool along_x = false;
  int64_t lanes = 1, slots = 1;
  int64_t blocks_x = 1, splits = 1;
  int64_t chunk = 0;
};

/// The plan for out_numel outputs (> 0) of red_numel reduced positions each. The strides are the
/// input byte strides of the fastest reduced and fastest kept dim; sm_count sizes the grid.
inline ReducePlan plan_reduction(int64_t out_numel, int64_t red_numel, int64_t red_stride0,
                                 int64_t out_in_stride0, int sm_count) {
  ReducePlan p;
  // Lanes take the reduction when its fastest dim is faster in memory than the outputs' fastest
  // (or there is one output).
  p.along_x = red_numel > 1 && (out_numel == 1 || std::abs(red_stride0) < std::abs(out_in_stride0));
  // Block shape: up to 256 lanes on one long reduction, or several outputs per block when the
  // reductions are short.
  const int64_t n_red = std::max<int64_t>(red_numel, 1);
  if (p.along_x) {
    p.lanes = std::min<int64_t>(pow2_ceil(n_red), kReduceThreads);
    p.slots = std::min<int64_t>(kReduceThreads / p.lanes, pow2_ceil(out_numel));
  } else {
    p.slots = std::min<int64_t>(pow2_ceil(out_numel), kReduceThreads);
    p.lanes = std::min<int64_t>(kReduceThreads / p.slots, pow2_ceil(n_red));
  }
  p.blocks_x = (out_numel + p.slots - 1) / p.slots;
  // gridDim.x stops at 2^31 - 1: past 2^31 outputs (a 2^31 x 129 input is 277 GB of bytes, more
  // than one GPU holds today) trade lanes for slots until the grid fits (up to 2^39 outputs).
  constexpr int64_t kMaxGridX = 2147483647;
  while (p.blocks_x > kMaxGridX && p.lanes > 1) {
    p.lanes /= 2;
    p.slots *= 2;
    p.blocks_x = (out_numel + p.slots - 1) / p.slots;
  }
  // Napkin math: one full wave on an H200 is 132 SMs x 8 blocks of 256 threads. With fewer
  // blocks, split every range so the grid fills the GPU, but keep >= 32 elements per thread so
  // the second pass stays small next to the first.
  const int64_t target = static_cast<int64_t>(sm_count) * (2048 / kReduceThreads);
  p.splits = 1;
  if (p.blocks_x < target) {
    p.splits = std::min((target + p.blocks_x - 1) / p.blocks_x, red_numel / (p.lanes * 32));
    p.splits = std::max<int64_t>(1, std::min<int64_t>(p.splits, kMaxGridY));
  }
  p.chunk = (red_numel + p.splits - 1) / p.splits;
  if (p.chunk > 0) p.splits = (red_numel + p.chunk - 1) / p.chunk;
  return p;
}

}  // namespace ember::kernels::cuda
