// The 2x2, stride 2 max pool of pool_max2x2.h: AVX-512 (or, on CPUs without it, AVX2) kernels for
// float32, and portable loops for the other dtypes and CPUs.
#include "kernels/cpu/pool_max2x2.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ember/core/half.h"
#include "kernels/cpu/pool_geometry.h"
#include "src/core/check.h"
#include "src/core/parallel.h"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#if defined(__AVX512F__)
// GCC 12 flags the _mm512_undefined pass-through operand inside the plain forms of
// _mm512_castsi512_si256, _mm512_cvtepi32_epi64 and _mm512_extracti64x4_epi64 as
// maybe-uninitialized once they inline here: a false positive (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ember::kernels {
namespace {

using namespace pool_loops;

#if defined(__AVX512F__)

// The masks of one step of `count` (1..16) outputs: the outputs themselves, and the 2 * count
// input floats of a row as the low and high halves of 32.
struct StepMasks {
  __mmask16 out, in_lo, in_hi;
  explicit StepMasks(int64_t count) {
    const int64_t in = 2 * count;
    out = static_cast<__mmask16>(count >= 16 ? 0xFFFF : (1u << count) - 1);
    in_lo = static_cast<__mmask16>(in >= 16 ? 0xFFFF : (1u << in) - 1);
    in_hi = static_cast<__mmask16>(in <= 16 ? 0 : (1u << (in - 16)) - 1);
  }
};

const __m512i kEven = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
const __m512i kOdd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
// Interleaving two vectors a, b into a0 b0 a1 b1 ...: the first 16 and the last 16 of the 32.
const __m512i kInterleaveLo =
    _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
const __m512i kInterleaveHi =
    _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
const __m512i kLaneTimes2 =
    _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);

// a when b is neither greater nor NaN, else b (PyTorch's rule for a later tap b); `took` says
// which.
inline __m512 later_wins(__m512 a, __m512 b, __mmask16* took) {
  *took = _mm512_cmp_ps_mask(b, a, _CMP_GT_OQ) | _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q);
  return _mm512_mask_blend_ps(*took, a, b);
}

// One output row: values, and either int64 indices (idx), window offsets (off) or neither.
void forward_row(const float* top, float* y, int64_t* idx, uint8_t* off, int64_t ow, int64_t base) {
  const int64_t in_w = 2 * ow;
  const float* bottom = top + in_w;
  const __m512i one = _mm512_set1_epi32(1), row = _mm512_set1_epi32(static_cast<int32_t>(in_w));
  const __m512i row1 = _mm512_set1_epi32(static_cast<int32_t>(in_w + 1));
  const __m512i two = _mm512_set1_epi32(2), three = _mm512_set1_epi32(3);
  const __m512i base64 = _mm512_set1_epi64(base);
  for (int64_t j = 0; j < ow; j += 16) {
    const StepMasks m(std::min<int64_t>(16, ow - j));
    const float* t = top + 2 * j;
    const float* b = bottom + 2 * j;
    const __m512 t0 = _mm512_maskz_loadu_ps(m.in_lo, t),
                 t1 = _mm512_maskz_loadu_ps(m.in_hi, t + 16);
    const __m512 b0 = _mm512_maskz_loadu_ps(m.in_lo, b),
                 b1 = _mm512_maskz_loadu_ps(m.in_hi, b + 16);
    __mmask16 top_odd, bottom_odd, bottom_wins;
    const __m512 tv = later_wins(_mm512_permutex2var_ps(t0, kEven, t1),
                                 _mm512_permutex2var_ps(t0, kOdd, t1), &top_odd);
    const __m512 bv = later_wins(_mm512_permutex2var_ps(b0, kEven, b1),
                                 _mm512_permutex2var_ps(b0, kOdd, b1), &bottom_odd);
    const __m512 v = later_wins(tv, bv, &bottom_wins);
    _mm512_mask_storeu_ps(y + j, m.out, v);
    if (off) {  // the winner's tap: 0, 1 (top row), 2, 3 (bottom row)
      const __m512i top_tap = _mm512_maskz_mov_epi32(top_odd, one);
      const __m512i bottom_tap = _mm512_mask_blend_epi32(bottom_odd, two, three);
      _mm512_mask_cvtepi32_storeu_epi8(off + j, m.out,
                                       _mm512_mask_blend_epi32(bottom_wins, top_tap, bottom_tap));
      continue;
    }
    if (!idx) continue;  // no indices wanted (inference)
    // Offset of the winner from the window's origin: 0, 1, in_w or in_w + 1.
    const __m512i top_off = _mm512_maskz_mov_epi32(top_odd, one);
    const __m512i bottom_off = _mm512_mask_blend_epi32(bottom_odd, row, row1);
    const __m512i off = _mm512_mask_blend_epi32(bottom_wins, top_off, bottom_off);
    const __m512i flat = _mm512_add_epi32(
        _mm512_add_epi32(kLaneTimes2, _mm512_set1_epi32(static_cast<int32_t>(2 * j))), off);
    const __m512i lo =
        _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(flat)), base64);
    const __m512i hi =
        _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(flat, 1)), base64);
    _mm512_mask_storeu_epi64(idx + j, static_cast<__mmask8>(m.out), lo);
    _mm512_mask_storeu_epi64(idx + j + 8, static_cast<__mmask8>(m.out >> 8), hi);
  }
}

// One 16-wide step of a 2x2 backward: g to the tap each mask names (at0, at1: the top row's even
// and odd columns; at_row, at_row1: the bottom row's), zeros to the other three.
inline void write_windows(__m512 g, __mmask16 at0, __mmask16 at1, __mmask16 at_row,
                          __mmask16 at_row1, float* top, float* bottom, const StepMasks& m) {
  const __m512 te = _mm512_maskz_mov_ps(at0, g), to = _mm512_maskz_mov_ps(at1, g);
  const __m512 be = _mm512_maskz_mov_ps(at_row, g), bo = _mm512_maskz_mov_ps(at_row1, g);
  _mm512_mask_storeu_ps(top, m.in_lo, _mm512_permutex2var_ps(te, kInterleaveLo, to));
  _mm512_mask_storeu_ps(top + 16, m.in_hi, _mm512_permutex2var_ps(te, kInterleaveHi, to));
  _mm512_mask_storeu_ps(bottom, m.in_lo, _mm512_permutex2var_ps(be, kInterleaveLo, bo));
  _mm512_mask_storeu_ps(bottom + 16, m.in_hi, _mm512_permutex2var_ps(be, kInterleaveHi, bo));
}

// Returns false at the first index outside its window.
bool backward_row(const float* gy, const int64_t* idx, float* top, int64_t ow, int64_t base) {
  const int64_t in_w = 2 * ow;
  float* bottom = top + in_w;
  const __m512i row = _mm512_set1_epi32(static_cast<int32_t>(in_w));
  const __m512i row1 = _mm512_set1_epi32(static_cast<int32_t>(in_w + 1));
  const __m512i lane2_lo = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i lane2_hi = _mm512_setr_epi64(16, 18, 20, 22, 24, 26, 28, 30);
  for (int64_t j = 0; j < ow; j += 16) {
    const StepMasks m(std::min<int64_t>(16, ow - j));
    const __m512 g = _mm512_maskz_loadu_ps(m.out, gy + j);
    // Offset of each index from its window's origin, saturated to int32 so that no far-off
    // index wraps around into a valid offset.
    const __m512i origin = _mm512_set1_epi64(base + 2 * j);
    const __m512i i_lo = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m.out), idx + j);
    const __m512i i_hi = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m.out >> 8), idx + j + 8);
    const __m256i off_lo =
        _mm512_cvtsepi64_epi32(_mm512_sub_epi64(_mm512_sub_epi64(i_lo, origin), lane2_lo));
    const __m256i off_hi =
        _mm512_cvtsepi64_epi32(_mm512_sub_epi64(_mm512_sub_epi64(i_hi, origin), lane2_hi));
    const __m512i delta = _mm512_inserti64x4(_mm512_castsi256_si512(off_lo), off_hi, 1);
    const __mmask16 at0 = _mm512_cmpeq_epi32_mask(delta, _mm512_setzero_si512());
    const __mmask16 at1 = _mm512_cmpeq_epi32_mask(delta, _mm512_set1_epi32(1));
    const __mmask16 at_row = _mm512_cmpeq_epi32_mask(delta, row);
    const __mmask16 at_row1 = _mm512_cmpeq_epi32_mask(delta, row1);
    if (((at0 | at1 | at_row | at_row1) & m.out) != m.out) return false;
    write_windows(g, at0, at1, at_row, at_row1, top + 2 * j, bottom + 2 * j, m);
  }
  return true;
}

// The same from window offsets (always inside their window: nothing to check). `off_end`: the end
// of the whole offsets buffer, which a step may read up to.
void backward_row_offsets(const float* gy, const uint8_t* off, const uint8_t* off_end, float* top,
                          int64_t ow) {
  float* bottom = top + 2 * ow;
  const __m512i one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2);
  const __m512i three = _mm512_set1_epi32(3);
  for (int64_t j = 0; j < ow; j += 16) {
    const StepMasks m(std::min<int64_t>(16, ow - j));
    const __m512 g = _mm512_maskz_loadu_ps(m.out, gy + j);
    // The step's 16 offsets, a byte each. The rows lie end to end, so a partial step reads on into
    // the next row's bytes (lanes its masks never store); only near the buffer's end does it go
    // through a zeroed copy (a masked byte load would need AVX512BW/VL, which AVX512F alone does
    // not promise). A copy per row cost LeNet's pools 237-242 against 185 us (forward + backward,
    // ember_bench_vision).
    __m128i bytes;
    if (off_end - (off + j) >= 16) {
      bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(off + j));
    } else {
      alignas(16) uint8_t tail[16] = {};
      std::memcpy(tail, off + j, static_cast<size_t>(ow - j));
      bytes = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
    }
    const __m512i o = _mm512_cvtepu8_epi32(bytes);
    write_windows(g, _mm512_testn_epi32_mask(o, o), _mm512_cmpeq_epi32_mask(o, one),
                  _mm512_cmpeq_epi32_mask(o, two), _mm512_cmpeq_epi32_mask(o, three), top + 2 * j,
                  bottom + 2 * j, m);
  }
}

// Output rows [0, rows) of the flat run, `oh` per plane, `ow` wide.
bool simd_forward(const float* x, float* y, int64_t* idx, uint8_t* off, int64_t rows, int64_t oh,
                  int64_t ow) {
  parallel_for(0, rows, pool_grain(4 * ow), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      forward_row(x + r * 4 * ow, y + r * ow, idx ? idx + r * ow : nullptr,
                  off ? off + r * ow : nullptr, ow, 2 * (r % oh) * 2 * ow);
  });
  return true;
}

// The input gradient of those rows; false at the first index outside its window.
bool simd_backward(const float* gy, const int64_t* idx, float* gx, int64_t rows, int64_t oh,
                   int64_t ow) {
  std::atomic<bool> ok{true};
  parallel_for(0, rows, pool_grain(4 * ow), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end && ok.load(std::memory_order_relaxed); ++r)
      if (!backward_row(gy + r * ow, idx + r * ow, gx + r * 4 * ow, ow, 2 * (r % oh) * 2 * ow))
        ok.store(false, std::memory_order_relaxed);
  });
  return ok.load();
}

bool simd_backward_offsets(const float* gy, const uint8_t* off, float* gx, int64_t rows,
                           int64_t ow) {
  parallel_for(0, rows, pool_grain(4 * ow), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      backward_row_offsets(gy + r * ow, off + r * ow, off + rows * ow, gx + r * 4 * ow, ow);
  });
  return true;
}

#elif defined(__AVX2__)

// AVX2: 8 outputs a step, rows of at least 8 outputs (the rest of a row one at a time); the index
// path and narrower rows take the portable loops below. One Zen 3 thread, LeNet's step: the two
// pools' forward and backward were 6 ms of 34 in the portable loops.

// The even and the odd columns of 16 floats of an input row, each in order.
inline void even_odd_columns(const float* p, __m256* even, __m256* odd) {
  const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
  // shuffle_ps works within 128-bit halves: a0 a2 b0 b2 | a4 a6 b4 b6; the 64-bit permute puts
  // a's pairs before b's.
  *even = _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
  *odd = _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
}

// a when the later tap b is neither greater nor NaN, else b (PyTorch's rule); where b wins, `off`
// becomes `code`.
inline __m256 later_tap_wins(__m256 a, __m256 b, __m256i* off, int code) {
  const __m256 took =
      _mm256_or_ps(_mm256_cmp_ps(b, a, _CMP_GT_OQ), _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  *off = _mm256_blendv_epi8(*off, _mm256_set1_epi32(code), _mm256_castps_si256(took));
  return _mm256_blendv_ps(a, b, took);
}

// One output row: its windows read input rows `top` and top + 2 * ow.
void forward_row_avx2(const float* top, float* y, uint8_t* off, int64_t ow) {
  const float* bottom = top + 2 * ow;
  int64_t j = 0;
  for (; j + 8 <= ow; j += 8) {
    __m256 t0, t1, b0, b1;
    even_odd_columns(top + 2 * j, &t0, &t1);
    even_odd_columns(bottom + 2 * j, &b0, &b1);
    __m256i o = _mm256_setzero_si256();
    __m256 m = later_tap_wins(t0, t1, &o, 1);
    m = later_tap_wins(m, b0, &o, 2);
    m = later_tap_wins(m, b1, &o, 3);
    _mm256_storeu_ps(y + j, m);
    if (off) {  // eight int32 offsets (0..3) to eight bytes
      const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(o), _mm256_extracti128_si256(o, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(off + j), _mm_packus_epi16(w, w));
    }
  }
  for (; j < ow; ++j) {
    const float taps[4] = {top[2 * j], top[2 * j + 1], bottom[2 * j], bottom[2 * j + 1]};
    float m = taps[0];
    uint8_t o = 0;
    for (uint8_t q = 1; q < 4; ++q)
      if (taps[q] > m || taps[q] != taps[q]) {
        m = taps[q];
        o = q;
      }
    y[j] = m;
    if (off) off[j] = o;
  }
}

// a0 b0 a1 b1 ... a7 b7 to p[0, 16).
inline void store_interleaved(float* p, __m256 a, __m256 b) {
  const __m256 lo = _mm256_unpacklo_ps(a, b), hi = _mm256_unpackhi_ps(a, b);
  _mm256_storeu_ps(p, _mm256_permute2f128_ps(lo, hi, 0x20));
  _mm256_storeu_ps(p + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
}

// The input gradient of one output row: each window's four taps, the gradient at its offset and
// zeros elsewhere.
void backward_row_offsets_avx2(const float* gy, const uint8_t* off, float* top, int64_t ow) {
  float* bottom = top + 2 * ow;
  int64_t j = 0;
  for (; j + 8 <= ow; j += 8) {
    const __m256 g = _mm256_loadu_ps(gy + j);
    const __m256i o =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(off + j)));
    auto at = [&](int code) {
      return _mm256_and_ps(g, _mm256_castsi256_ps(_mm256_cmpeq_epi32(o, _mm256_set1_epi32(code))));
    };
    store_interleaved(top + 2 * j, at(0), at(1));
    store_interleaved(bottom + 2 * j, at(2), at(3));
  }
  for (; j < ow; ++j) {
    top[2 * j] = off[j] == 0 ? gy[j] : 0.0f;
    top[2 * j + 1] = off[j] == 1 ? gy[j] : 0.0f;
    bottom[2 * j] = off[j] == 2 ? gy[j] : 0.0f;
    bottom[2 * j + 1] = off[j] == 3 ? gy[j] : 0.0f;
  }
}

bool simd_forward(const float* x, float* y, int64_t* idx, uint8_t* off, int64_t rows,
                  int64_t /*oh*/, int64_t ow) {
  if (idx || ow < 8) return false;
  parallel_for(0, rows, pool_grain(4 * ow), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      forward_row_avx2(x + r * 4 * ow, y + r * ow, off ? off + r * ow : nullptr, ow);
  });
  return true;
}
bool simd_backward(const float*, const int64_t*, float*, int64_t, int64_t, int64_t) {
  return false;
}
bool simd_backward_offsets(const float* gy, const uint8_t* off, float* gx, int64_t rows,
                           int64_t ow) {
  if (ow < 8) return false;
  parallel_for(0, rows, pool_grain(4 * ow), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      backward_row_offsets_avx2(gy + r * ow, off + r * ow, gx + r * 4 * ow, ow);
  });
  return true;
}

#else

// Without AVX-512 or AVX2 the portable loops below do everything.
bool simd_forward(const float*, float*, int64_t*, uint8_t*, int64_t, int64_t, int64_t) {
  return false;
}
bool simd_backward(const float*, const int64_t*, float*, int64_t, int64_t, int64_t) {
  return false;
}
bool simd_backward_offsets(const float*, const uint8_t*, float*, int64_t, int64_t) { return false; }

#endif

// Pass 1 of the 2x2 max pool: the larger of each horizontal pair (x[2j], x[2j + 1]) and which
// (0 or 1), over a flat run of whole rows. Restrict pointers and no branch, so it vectorises.
template <class T, class Acc>
void max_of_pairs(Acc* __restrict__ val, int32_t* __restrict__ which, const T* __restrict__ x,
                  int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const Acc a = static_cast<Acc>(x[2 * j]), b = static_cast<Acc>(x[2 * j + 1]);
    const bool take = (b > a) | (b != b);  // PyTorch's rule: greater, or NaN
    val[j] = take ? b : a;
    which[j] = take ? 1 : 0;
  }
}

// Pass 2: one output row from the pair maxima of its top and bottom input rows; the top wins ties,
// so the result is PyTorch's scan over (0,0), (0,1), (1,0), (1,1). `index` is the flat plane index
// of the row's first window. Writes indices (idx), window offsets (off) or neither.
template <class T, class Acc>
void max_of_rows(T* __restrict__ y, int64_t* __restrict__ idx, uint8_t* __restrict__ off,
                 const Acc* __restrict__ top, const int32_t* __restrict__ top_which,
                 const Acc* __restrict__ bottom, const int32_t* __restrict__ bottom_which,
                 int64_t n, int64_t index, int64_t in_w) {
  if (off) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const Acc t = top[j], b = bottom[j];
      const bool take = (b > t) | (b != b);
      y[j] = static_cast<T>(take ? b : t);
      off[j] = static_cast<uint8_t>(take ? 2 + bottom_which[j] : top_which[j]);
    }
    return;
  }
  if (!idx) {  // no indices wanted (inference)
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const Acc t = top[j], b = bottom[j];
      y[j] = static_cast<T>(((b > t) | (b != b)) ? b : t);
    }
    return;
  }
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const Acc t = top[j], b = bottom[j];
    const bool take = (b > t) | (b != b);
    y[j] = static_cast<T>(take ? b : t);
    idx[j] = index + 2 * j + (take ? in_w + bottom_which[j] : top_which[j]);
  }
}

}  // namespace

// The commonest max pool, 2x2 windows at stride 2 with no padding or dilation, over dense NCHW
// tensors whose planes the windows tile exactly (even H and W): every CNN's downsampling. The
// planar loop above pays its setup per plane, which LeNet's second pool (4096 planes of 8x8) spent
// 1.1 ms of a 1.3 ms call on; here all planes are one flat run of rows, taken in chunks: pass 1
// over the chunk's horizontal pairs, pass 2 per output row. One Xeon thread: LeNet's pools
// [64, 32, 24, 24] 1.6 -> 1.3 ms, [64, 64, 8, 8] 1.1 -> 0.5 ms. float32 on AVX-512 takes
// the AVX-512 kernel above instead (16 outputs a step: 0.16 and 0.08 ms), or on AVX2 the 8-wide
// one for rows of 8 outputs or more.
// Returns false, doing nothing, for any other pooling.
template <class T>
bool max_pool_2x2(const PoolParams& p) {
  if (p.adaptive || p.kernel[0] != 1 || p.in.size[0] != 1 || p.out.size[0] != 1) return false;
  for (int i = 1; i < 3; ++i)
    if (p.kernel[i] != 2 || p.stride[i] != 2 || p.pad[i] != 0 || p.dilation[i] != 1 ||
        p.in.size[i] != 2 * p.out.size[i])
      return false;
  if (!planes_are_one_run(p.in, p.batch, p.channels) ||
      !planes_are_one_run(p.out, p.batch, p.channels))
    return false;
  using Acc = opmath_t<T>;
  const T* x = static_cast<const T*>(p.input);
  T* y = static_cast<T*>(p.output);
  const int64_t oh_n = p.out.size[1], ow_n = p.out.size[2], in_w = p.in.size[2];
  const int64_t rows = p.batch * p.channels * oh_n;  // output rows, all planes
  if constexpr (std::is_same_v<T, float>)
    if (simd_forward(x, y, p.indices, p.offsets, rows, oh_n, ow_n)) return true;
  parallel_for(0, rows, pool_grain(4 * ow_n), [&](int64_t begin, int64_t end) {
    constexpr int64_t kChunk = 256;  // output rows per pass 1: ~24 KiB of pair maxima for LeNet
    std::vector<Acc> val(static_cast<size_t>(std::min(kChunk, end - begin) * 2 * ow_n));
    std::vector<int32_t> which(val.size());
    for (int64_t r0 = begin; r0 < end; r0 += kChunk) {
      const int64_t n = std::min(kChunk, end - r0);
      // Output row r reads input rows 2r and 2r + 1 of the flat run (the windows tile the planes).
      max_of_pairs(val.data(), which.data(), x + r0 * 2 * in_w, n * 2 * ow_n);
      for (int64_t r = r0; r < r0 + n; ++r) {
        const int64_t k = (r - r0) * 2 * ow_n;
        max_of_rows(y + r * ow_n, p.indices ? p.indices + r * ow_n : nullptr,
                    p.offsets ? p.offsets + r * ow_n : nullptr, val.data() + k, which.data() + k,
                    val.data() + k + ow_n, which.data() + k + ow_n, ow_n, 2 * (r % oh_n) * in_w,
                    in_w);
      }
    }
  });
  return true;
}

// max_pool's backward (float32) when the pooling was the 2x2, stride 2 one of max_pool_2x2 (the
// sizes halve, planes dense and flat) and every index lies in its own window, which the kernel
// checks: then each input element belongs to one window, and the gradient is written in one dense
// pass with no zeroing first. False when it does not apply.
bool max_pool_2x2_scatter(const PoolIndexParams& p) {
  if (p.assign || p.small.size[0] != 1 || p.large.size[0] != 1 ||
      p.large.size[1] != 2 * p.small.size[1] || p.large.size[2] != 2 * p.small.size[2])
    return false;
  if (!planes_are_one_run(p.small, p.batch, p.channels) ||
      !planes_are_one_run(p.large, p.batch, p.channels))
    return false;
  const int64_t oh = p.small.size[1], ow = p.small.size[2];
  return simd_backward(static_cast<const float*>(p.small_data), p.indices,
                       static_cast<float*>(p.large_data), p.batch * p.channels * oh, oh, ow);
}

namespace {

// max_pool_2x2_backward of one dtype: the AVX-512 or AVX2 kernel for float32, else a plain loop
// writing each window's four taps (the gradient at its offset, zeros elsewhere).
template <class T>
void backward_offsets(const PoolParams& p) {
  const T* gy = static_cast<const T*>(p.output);
  T* gx = static_cast<T*>(p.input);
  const uint8_t* off = p.offsets;
  const int64_t ow = p.out.size[2], rows = p.batch * p.channels * p.out.size[1];
  if constexpr (std::is_same_v<T, float>)
    if (simd_backward_offsets(gy, off, gx, rows, ow)) return;
  parallel_for(0, rows, pool_grain(4 * ow), [&](int64_t begin, int64_t end) {
    const T zero = static_cast<T>(0.0f);
    for (int64_t r = begin; r < end; ++r) {
      const T* g = gy + r * ow;
      const uint8_t* o = off + r * ow;
      T* top = gx + r * 4 * ow;
      T* bottom = top + 2 * ow;
      for (int64_t j = 0; j < ow; ++j) {
        top[2 * j] = o[j] == 0 ? g[j] : zero;
        top[2 * j + 1] = o[j] == 1 ? g[j] : zero;
        bottom[2 * j] = o[j] == 2 ? g[j] : zero;
        bottom[2 * j + 1] = o[j] == 3 ? g[j] : zero;
      }
    }
  });
}

template <class T>
struct OffsetsForwardRun {
  static void run(const PoolParams& p) {
    // The caller (pool::max_pool) has checked the geometry; the planes' layout is checked again.
    EMBER_CHECK(p.offsets && max_pool_2x2<T>(p),
                "max_pool_2x2: internal error: expected 2x2 windows at stride 2 over dense planes");
  }
};
template <class T>
struct OffsetsBackwardRun {
  static void run(const PoolParams& p) { backward_offsets<T>(p); }
};

}  // namespace

void cpu_max_pool_2x2(ScalarType dtype, const PoolParams& p) {
  visit_pool_float<OffsetsForwardRun>(dtype, p);
}
void cpu_max_pool_2x2_backward(ScalarType dtype, const PoolParams& p) {
  visit_pool_float<OffsetsBackwardRun>(dtype, p);
}

template bool max_pool_2x2<float>(const PoolParams&);
template bool max_pool_2x2<double>(const PoolParams&);
template bool max_pool_2x2<BFloat16>(const PoolParams&);
template bool max_pool_2x2<Half>(const PoolParams&);

}  // namespace ember::kernels
