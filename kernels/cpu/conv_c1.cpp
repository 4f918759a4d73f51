// The single-input-channel direct convolution of conv_c1.h.
#include "kernels/cpu/conv_c1.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/core/parallel.h"

#if defined(__AVX512F__)
#include <immintrin.h>
// GCC 12 flags the _mm256_undefined_pd pass-through operand of _mm512_extractf64x4_pd inside
// _mm512_reduce_add_ps as maybe-uninitialized once it inlines here: a false positive (GCC bug
// 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ember::kernels {
namespace {

// The kernels need AVX-512; elsewhere conv_c1_* decline and oneDNN takes these convolutions.
#if defined(__AVX512F__)

// The geometry the kernels use: one image is h*w floats in, oh*ow per channel out, and `span`
// flat positions ((oh - 1) * w + ow) cover every output with the w - ow thrown-away columns.
struct C1Geom {
  int64_t n, oc, h, w, kh, kw, oh, ow, span;
  int64_t taps() const { return kh * kw; }
};

// The kernel's taps live in registers' worth of packed weights and accumulators on the stack.
constexpr int64_t kMaxTaps = 64;

bool c1_applies(const ConvParams& p, C1Geom* g) {
  if (p.spatial != 2 || p.ic != 1 || p.groups != 1 || p.channels_last) return false;
  for (int i = 0; i < 2; ++i) {
    if (p.stride[i] != 1 || p.dilation[i] != 1 || p.pad[i] != 0) return false;
    if (p.out[i] != p.in[i] - p.k[i] + 1) return false;  // no right padding either
  }
  // A 16-wide step must span at most two rows.
  if (p.in[1] < 16 || p.k[0] * p.k[1] > kMaxTaps) return false;
  *g = C1Geom{p.n, p.oc, p.in[0], p.in[1], p.k[0], p.k[1], p.out[0], p.out[1], 0};
  g->span = (g->oh - 1) * g->w + g->ow;
  return true;
}

inline __mmask16 first_lanes(int64_t count) {
  if (count <= 0) return 0;
  return count >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << count) - 1);
}

// Where the lanes of one 16-position step (flat positions q .. q + 15, those in `valid`) go in a
// dense [oh, ow] plane: the lanes before row r's end to that row from column c, the lanes after
// row r + 1's start, moved down to lane 0 by a compress, to the start of the next row.
struct FlatStore {
  int64_t this_offset = 0, next_offset = 0;
  __mmask16 this_row = 0, next_row = 0, next_count = 0;
  FlatStore(const C1Geom& g, int64_t q, __mmask16 valid) {
    const int64_t r = q / g.w, c = q - r * g.w;
    this_offset = r * g.ow + c;
    next_offset = (r + 1) * g.ow;
    this_row = valid & first_lanes(g.ow - c);
    const int64_t next = g.w - c;  // first lane of row r + 1
    if (next < 16) {
      next_row = valid & first_lanes(next + g.ow) & static_cast<__mmask16>(~first_lanes(next));
      next_count = first_lanes(_mm_popcnt_u32(next_row));
    }
  }
  void store(float* plane, __m512 v) const {
    if (this_row) _mm512_mask_storeu_ps(plane + this_offset, this_row, v);
    if (next_row)
      _mm512_mask_storeu_ps(plane + next_offset, next_count, _mm512_maskz_compress_ps(next_row, v));
  }
};

constexpr int kForwardChannels = 8;
constexpr int kForwardVectors = 3;  // 8 x 3 accumulators, 3 inputs and a weight: 28 registers

// Output channels [oc0, oc0 + 8) of one image (channels past g.oc have zero weights and are not
// stored). wp: the block's weights as [tap][8]. Each step is 48 flat positions: per tap, three
// input loads and eight weight broadcasts feed 24 FMAs.
void forward_block(const float* x, const float* wp, const float* bias, float* y, const C1Geom& g,
                   int64_t oc0) {
  constexpr int64_t kStep = 16 * kForwardVectors;
  const int64_t valid_channels = std::min<int64_t>(kForwardChannels, g.oc - oc0);
  const int64_t plane = g.oh * g.ow;
  for (int64_t q = 0; q < g.span; q += kStep) {
    __mmask16 lanes[kForwardVectors];
    for (int v = 0; v < kForwardVectors; ++v) lanes[v] = first_lanes(g.span - q - 16 * v);
    // Full steps stay inside the image (their last read is below h * w); the last one is masked
    // so it reads nothing past it.
    const bool full = lanes[kForwardVectors - 1] == 0xFFFF;
    __m512 acc[kForwardChannels][kForwardVectors];
#pragma GCC unroll 8
    for (int o = 0; o < kForwardChannels; ++o) {
      const __m512 b = _mm512_set1_ps(bias && o < valid_channels ? bias[oc0 + o] : 0.0f);
#pragma GCC unroll 3
      for (int v = 0; v < kForwardVectors; ++v) acc[o][v] = b;
    }
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        const float* xp = x + q + i * g.w + j;
        __m512 in[kForwardVectors];
#pragma GCC unroll 3
        for (int v = 0; v < kForwardVectors; ++v)
          in[v] =
              full ? _mm512_loadu_ps(xp + 16 * v) : _mm512_maskz_loadu_ps(lanes[v], xp + 16 * v);
        const float* wt = wp + (i * g.kw + j) * kForwardChannels;
#pragma GCC unroll 8
        for (int o = 0; o < kForwardChannels; ++o) {
          const __m512 wv = _mm512_set1_ps(wt[o]);
#pragma GCC unroll 3
          for (int v = 0; v < kForwardVectors; ++v)
            acc[o][v] = _mm512_fmadd_ps(in[v], wv, acc[o][v]);
        }
      }
    }
    // Unrolled with constant indices, so that the accumulators stay in registers (a loop to
    // valid_channels made GCC keep them on the stack, stored after every tap).
#pragma GCC unroll 3
    for (int v = 0; v < kForwardVectors; ++v) {
      if (!lanes[v]) break;
      const FlatStore st(g, q + 16 * v, lanes[v]);
#pragma GCC unroll 8
      for (int o = 0; o < kForwardChannels; ++o)
        if (o < valid_channels) st.store(y + (oc0 + o) * plane, acc[o][v]);
    }
  }
}

void forward(const ConvParams& p, const C1Geom& g) {
  const auto* x = static_cast<const float*>(p.x);
  const auto* w = static_cast<const float*>(p.w);
  const auto* b = static_cast<const float*>(p.b);
  auto* y = static_cast<float*>(p.y);
  const int64_t blocks = (g.oc + kForwardChannels - 1) / kForwardChannels, taps = g.taps();
  // Weights as [block][tap][8], zero past the last channel.
  std::vector<float> wp(static_cast<size_t>(blocks * taps * kForwardChannels), 0.0f);
  for (int64_t o = 0; o < g.oc; ++o)
    for (int64_t t = 0; t < taps; ++t)
      wp[static_cast<size_t>(((o / kForwardChannels) * taps + t) * kForwardChannels +
                             o % kForwardChannels)] = w[o * taps + t];
  const int64_t in_plane = g.h * g.w, out_image = g.oc * g.oh * g.ow;
  // One task is one block of one image (~8 * 576 * 25 FMAs in LeNet).
  const int64_t grain = std::max<int64_t>(1, 65536 / (kForwardChannels * g.span * taps));
  parallel_for(0, g.n * blocks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, blk = task % blocks;
      forward_block(x + n * in_plane, wp.data() + blk * taps * kForwardChannels, b,
                    y + n * out_image, g, blk * kForwardChannels);
    }
  });
}

// The first 64-byte aligned float of a buffer allocated 16 floats longer than needed.
inline float* align64(float* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<float*>((a + 63) & ~static_cast<uintptr_t>(63));
}

constexpr int kGradChannels = 4;
constexpr int kGradTaps = 5;  // taps of one kernel row per pass

// acc[o][t] += sum over the flat positions of dyp[o] * x[kernel offset + t], taps [j0, j0 + NT)
// of kernel row i. dyp: the block's dy as [4][stride], zero outside the outputs.
template <int NT>
void grad_row_taps(const float* x, const float* dyp, int64_t stride, const C1Geom& g, int64_t i,
                   int64_t j0, float* acc_mem) {
  __m512 acc[kGradChannels][NT];
#pragma GCC unroll 4
  for (int o = 0; o < kGradChannels; ++o)
#pragma GCC unroll 5
    for (int t = 0; t < NT; ++t) acc[o][t] = _mm512_setzero_ps();
  const float* xr = x + i * g.w + j0;
  for (int64_t q = 0; q < g.span; q += 16) {
    const __mmask16 lanes = first_lanes(g.span - q);
    __m512 d[kGradChannels];
#pragma GCC unroll 4
    for (int o = 0; o < kGradChannels; ++o) d[o] = _mm512_load_ps(dyp + o * stride + q);
#pragma GCC unroll 5
    for (int t = 0; t < NT; ++t) {
      __m512 xv =
          lanes == 0xFFFF ? _mm512_loadu_ps(xr + q + t) : _mm512_maskz_loadu_ps(lanes, xr + q + t);
      // One load per tap, kept in a register: left alone, GCC 12 folds the load into each of the
      // four FMAs as a memory operand, four unaligned (mostly cache-line-splitting) loads where
      // one does, and the loop became load-bound at half the FMA rate (one Zen 5 thread: LeNet's
      // conv 1 weight gradient, with the prefetch in grad_block: 0.80 -> 0.45-0.52 ms).
      asm("" : "+v"(xv));
#pragma GCC unroll 4
      for (int o = 0; o < kGradChannels; ++o) acc[o][t] = _mm512_fmadd_ps(d[o], xv, acc[o][t]);
    }
  }
#pragma GCC unroll 4
  for (int o = 0; o < kGradChannels; ++o)
#pragma GCC unroll 5
    for (int t = 0; t < NT; ++t) {
      float* m = acc_mem + (o * g.taps() + i * g.kw + j0 + t) * 16;
      _mm512_store_ps(m, _mm512_add_ps(_mm512_load_ps(m), acc[o][t]));
    }
}

using GradRowFn = void (*)(const float*, const float*, int64_t, const C1Geom&, int64_t, int64_t,
                           float*);
constexpr GradRowFn kGradRow[kGradTaps + 1] = {nullptr,          grad_row_taps<1>,
                                               grad_row_taps<2>, grad_row_taps<3>,
                                               grad_row_taps<4>, grad_row_taps<5>};

// The weight (and bias) gradient of output channels [oc0, oc0 + 4) over every image.
void grad_block(const float* x, const float* dy, float* dw, float* db, const C1Geom& g,
                int64_t oc0) {
  const int64_t valid_channels = std::min<int64_t>(kGradChannels, g.oc - oc0);
  const int64_t taps = g.taps(), plane = g.oh * g.ow;
  const int64_t stride = (g.span + 15) / 16 * 16;
  // Per-thread buffers: dy of the block W wide (the zeros between rows and past the span are
  // written once here and never touched again), and one vector accumulator per channel and tap.
  thread_local std::vector<float> dyp_buf, acc_buf;
  dyp_buf.assign(static_cast<size_t>(kGradChannels * stride + 16), 0.0f);
  acc_buf.assign(static_cast<size_t>(kGradChannels * taps * 16 + 16), 0.0f);
  float* dyp = align64(dyp_buf.data());
  float* acc_mem = align64(acc_buf.data());
  __m512 bias_sum[kGradChannels];
  for (__m512& v : bias_sum) v = _mm512_setzero_ps();
  for (int64_t n = 0; n < g.n; ++n) {
    for (int o = 0; o < valid_channels; ++o) {
      const float* src = dy + (n * g.oc + oc0 + o) * plane;
      float* dst = dyp + o * stride;
      // Rows are short (24 floats in LeNet): vector copies, where memcpy's call cost dominated.
      for (int64_t r = 0; r < g.oh; ++r)
        for (int64_t c = 0; c < g.ow; c += 16) {
          const __mmask16 m = first_lanes(g.ow - c);
          _mm512_mask_storeu_ps(dst + r * g.w + c, m, _mm512_maskz_loadu_ps(m, src + r * g.ow + c));
        }
      // The bias gradient from the copy (zeros between rows), in vectors: a scalar sum is one
      // long dependency chain and cost more than the weight gradient itself.
      __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
      int64_t q = 0;
      for (; q + 32 <= stride; q += 32) {
        s0 = _mm512_add_ps(s0, _mm512_load_ps(dst + q));
        s1 = _mm512_add_ps(s1, _mm512_load_ps(dst + q + 16));
      }
      if (q < stride) s0 = _mm512_add_ps(s0, _mm512_load_ps(dst + q));
      bias_sum[o] = _mm512_add_ps(bias_sum[o], _mm512_add_ps(s0, s1));
    }
    // The next image's dy of this block lies a whole image of channels further on, too far for
    // the hardware prefetcher to have it ready: fetch it now, behind this image's FMAs (most of
    // this function's time was a stall on that copy's loads).
    if (n + 1 < g.n) {
      const char* next = reinterpret_cast<const char*>(dy + ((n + 1) * g.oc + oc0) * plane);
      // At most 32 KiB (LeNet's block is 9 KiB): a large plane's block would only push this
      // image's data out of L1.
      const int64_t bytes = std::min<int64_t>(
          valid_channels * plane * static_cast<int64_t>(sizeof(float)), int64_t{32} << 10);
      for (int64_t off = 0; off < bytes; off += 64) _mm_prefetch(next + off, _MM_HINT_T0);
    }
    const float* xn = x + n * g.h * g.w;
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j0 = 0; j0 < g.kw; j0 += kGradTaps)
        kGradRow[std::min<int64_t>(kGradTaps, g.kw - j0)](xn, dyp, stride, g, i, j0, acc_mem);
  }
  for (int o = 0; o < valid_channels; ++o) {
    for (int64_t t = 0; t < taps; ++t)
      dw[(oc0 + o) * taps + t] =
          _mm512_reduce_add_ps(_mm512_load_ps(acc_mem + (o * taps + t) * 16));
    if (db) db[oc0 + o] = _mm512_reduce_add_ps(bias_sum[o]);
  }
}

void backward_weights(const ConvParams& p, const C1Geom& g) {
  const auto* x = static_cast<const float*>(p.x);
  const auto* dy = static_cast<const float*>(p.y);
  auto* dw = static_cast<float*>(const_cast<void*>(p.w));
  auto* db = static_cast<float*>(const_cast<void*>(p.b));
  const int64_t blocks = (g.oc + kGradChannels - 1) / kGradChannels;
  // Blocks split across threads: each writes its own channels, so no reduction is needed and the
  // result does not depend on the thread count.
  parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t blk = begin; blk < end; ++blk) grad_block(x, dy, dw, db, g, blk * kGradChannels);
  });
}

// Runs `kernel` when this kernel family applies to p; false, doing nothing, otherwise.
template <class Kernel>
bool run_if_applies(const ConvParams& p, Kernel kernel) {
  C1Geom g;
  if (!c1_applies(p, &g)) return false;
  kernel(p, g);
  return true;
}

#endif  // __AVX512F__

}  // namespace

bool conv_c1_forward(const ConvParams& p) {
#if defined(__AVX512F__)
  return run_if_applies(p, forward);
#else
  (void)p;
  return false;
#endif
}

bool conv_c1_backward_weights(const ConvParams& p) {
#if defined(__AVX512F__)
  return run_if_applies(p, backward_weights);
#else
  (void)p;
  return false;
#endif
}

}  // namespace ember::kernels
