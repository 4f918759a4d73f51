// The word arithmetic of the CUDA accumulating put for 1- and 2-byte elements
// (kernels/cuda/narrow_atomic_math.h) checked on the CPU: for every element position in an
// aligned buffer, rewriting the containing 32-bit word adds into exactly that element (wrapping,
// or `or` for bool), as a plain element add does, and leaves every other byte as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cuda/narrow_atomic_math.h"

using namespace ember::kernels::cuda;

namespace {

template <class T>
T narrow_plain_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else
    return static_cast<T>(a + b);
}

template <class T>
void check_every_position(const std::vector<T>& addends) {
  constexpr int kWords = 3;
  constexpr int kElems = kWords * 4 / static_cast<int>(sizeof(T));
  for (int pos = 0; pos < kElems; ++pos) {
    for (T v : addends) {
      alignas(4) T buf[kElems];
      for (int k = 0; k < kElems; ++k) buf[k] = static_cast<T>(k * 37 + 11);  // distinct bytes
      if constexpr (std::is_same_v<T, bool>)
        for (int k = 0; k < kElems; ++k) buf[k] = (k % 3) == 0;
      T expected[kElems];
      std::memcpy(expected, buf, sizeof(buf));
      expected[pos] = narrow_plain_add(expected[pos], v);

      const NarrowSlot s = narrow_slot<T>(reinterpret_cast<uintptr_t>(&buf[pos]));
      ASSERT_EQ(s.word % 4, 0u);
      ASSERT_LE(reinterpret_cast<uintptr_t>(buf), s.word);
      ASSERT_LT(s.word, reinterpret_cast<uintptr_t>(buf) + sizeof(buf));
      unsigned int word;
      std::memcpy(&word, reinterpret_cast<void*>(s.word), 4);
      word = narrow_added(word, s, v);
      std::memcpy(reinterpret_cast<void*>(s.word), &word, 4);
      EXPECT_EQ(std::memcmp(buf, expected, sizeof(buf)), 0)
          << "element " << pos << " of " << sizeof(T) << "-byte type, adding " << +v;
    }
  }
}

}  // namespace

TEST(CudaNarrowAtomic, AddsIntoOneElementOfTheWordAndWraps) {
  check_every_position<uint8_t>({0, 1, 7, 200, 255});
  check_every_position<int8_t>({0, 1, -1, 100, -128, 127});
  check_every_position<int16_t>({0, 1, -1, 30000, -32768, 32767});
}

TEST(CudaNarrowAtomic, BoolAccumulatesAsOr) { check_every_position<bool>({false, true}); }
