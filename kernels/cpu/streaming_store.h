// Streaming (non-temporal) stores for elementwise outputs too large to stay in the last-level
// cache. A plain store first reads its cache line from memory (write-allocate), so `out = f(a)`
// moves three lines per output line; a streaming store skips that read. For an output the
// cache cannot hold anyway nothing is lost by bypassing it. 64 MiB outputs on one AVX2 EPYC
// core (medians of 25 interleaved runs): relu 10.7-12.4 -> 15.0-17.1 GB/s, add 12.6-13.2 ->
// 15.7-18.3 GB/s. glibc's memcpy makes the same choice above a fraction of the cache size.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/core/macros.h"

#if defined(__AVX2__)
#include <immintrin.h>
#define EMBER_HAVE_STREAMING_STORES 1
#endif

namespace ember::kernels {

/// Output size in bytes from which the dense elementwise loop writes with streaming stores: the
/// size of the largest data cache as sysfs lists it (else sysconf's L3 size, else 32 MiB).
EMBER_API size_t streaming_store_threshold();
/// Overrides the threshold (tests run the streaming path on small tensors); 0 restores the
/// default.
EMBER_API void set_streaming_store_threshold(size_t bytes);

#ifdef EMBER_HAVE_STREAMING_STORES
/// Copies `bytes` (a multiple of 64) from `src` to the 64-byte aligned `dst` with streaming
/// stores. The caller issues stream_fence() before other threads may read dst.
inline void stream_copy(void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<__m256i*>(dst);
  const auto* s = static_cast<const __m256i*>(src);
  for (size_t i = 0; i < bytes / sizeof(__m256i); ++i)
    _mm256_stream_si256(d + i, _mm256_loadu_si256(s + i));
}
/// Orders the streaming stores before whatever this thread does next (the end of a parallel
/// region, so the joining thread sees them).
inline void stream_fence() { _mm_sfence(); }
#endif

}  // namespace ember::kernels
