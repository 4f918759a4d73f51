// The word arithmetic behind the CUDA accumulating put for 1- and 2-byte elements
// (kernels/cuda/index_kernels.cu): GPUs have no atomic add for uint8, int8, int16 or bool, so the
// kernel compare-and-swaps the aligned 32-bit word holding the element, rewriting only its bytes.
// No CUDA header is needed, so tests/core/cuda_narrow_atomic_test.cpp checks it on the CPU (both
// are little-endian: byte k of a word is bits [8k, 8k + 8)).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ember/core/macros.h"

namespace ember::kernels::cuda {

/// Where an element sits in its word: the word's address, the element's first bit, and the mask
/// of its bits. A 2-byte element is 2-aligned, so it never straddles two words.
struct NarrowSlot {
  uintptr_t word;
  unsigned int shift;
  unsigned int mask;
};

template <class T>
EMBER_HOST_DEVICE inline NarrowSlot narrow_slot(uintptr_t addr) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2, "1- and 2-byte elements only");
  constexpr unsigned int kElementMask = sizeof(T) == 1 ? 0xffu : 0xffffu;
  const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
  return {addr & ~uintptr_t(3), shift, kElementMask << shift};
}

/// `word` with its element at `s` replaced by element + v: a wrapping add, as the CPU's T(a + b)
/// (the low bits of the sum of the bit patterns), or element || v for bool. The other bytes are
/// kept as they are.
template <class T>
EMBER_HOST_DEVICE inline unsigned int narrow_added(unsigned int word, const NarrowSlot& s, T v) {
  using U = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;
  const U cur = static_cast<U>((word & s.mask) >> s.shift);
  U next;
  if constexpr (std::is_same_v<T, bool>) {
    next = static_cast<U>((cur != 0 || v) ? 1 : 0);
  } else {
    next = static_cast<U>(cur + static_cast<U>(v));
  }
  return (word & ~s.mask) | ((static_cast<unsigned int>(next) << s.shift) & s.mask);
}

}  // namespace ember::kernels::cuda
