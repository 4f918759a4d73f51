// Portability macros shared by host and device code.
#pragma once

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#define EMBER_DEVICE_INLINE __device__ __forceinline__
#else
#define EMBER_HOST_DEVICE
#define EMBER_DEVICE_INLINE inline
#endif

#define EMBER_API __attribute__((visibility("default")))

#if defined(__GNUC__)
#define EMBER_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMBER_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define EMBER_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define EMBER_LIKELY(x) (x)
#define EMBER_UNLIKELY(x) (x)
#define EMBER_ALWAYS_INLINE inline
#endif
