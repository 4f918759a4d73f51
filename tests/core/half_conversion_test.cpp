// float16 and bfloat16 conversions (include/ember/core/half.h) against straightforward branching
// reference forms written here: every 16-bit pattern to float, and floats around every rounding
// boundary to 16 bits (each upper half with the low bits that sit on, beside and between the
// ties). Checked twice: the header's scalar form as this test compiles it, and the vectorised
// loops of the cast kernels (compiled for the machine, without trapping math), through Tensor::to.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float ref_half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0x1f) return float_of(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return sign ? -v : v;
  }
  return float_of(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t ref_half_from_float(float f) {
  const uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000u, abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow, Inf
  if (abs < 0x38800000u) {  // subnormal: round abs * 2^24 to an integer, ties to even
    const double scaled = static_cast<double>(float_of(abs)) * 16777216.0;
    double whole = static_cast<double>(static_cast<uint32_t>(scaled));
    const double frac = scaled - whole;
    if (frac > 0.5 || (frac == 0.5 && static_cast<uint32_t>(whole) % 2 == 1)) whole += 1;
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(whole));
  }
  const uint32_t kept = abs >> 13, dropped = abs & 0x1fffu;
  uint32_t h = ((kept - (112u << 10)) & 0x7fffu);
  if (dropped > 0x1000u || (dropped == 0x1000u && (kept & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

uint16_t ref_bf16_from_float(float f) {
  const uint32_t u = bits_of(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  const uint32_t kept = u >> 16, dropped = u & 0xffffu;
  return static_cast<uint16_t>(kept + (dropped > 0x8000u || (dropped == 0x8000u && (kept & 1u))));
}

// Floats whose upper 16 bits take every value, with low bits on and around both types' ties.
std::vector<float> boundary_floats() {
  const uint32_t lows[] = {0x0,    0x1,    0xfff,  0x1000, 0x1001, 0x1fff, 0x2000,
                           0x3000, 0x7fff, 0x8000, 0x8001, 0xa5a5, 0xefff, 0xffff};
  std::vector<float> out;
  out.reserve(65536 * std::size(lows));
  for (uint32_t hi = 0; hi < 65536; ++hi)
    for (uint32_t lo : lows) out.push_back(float_of(hi << 16 | lo));
  return out;
}

TEST(HalfConversion, EveryHalfToFloat) {
  const Tensor halves = empty({65536}, kHalf);
  Half* hp = halves.data_ptr<Half>();
  for (uint32_t h = 0; h < 65536; ++h) hp[h].x = static_cast<uint16_t>(h);
  const Tensor floats = halves.to(kFloat).contiguous();
  const float* kernel = floats.data_ptr<float>();
  int bad_scalar = 0, bad_kernel = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t want = bits_of(ref_half_to_float(static_cast<uint16_t>(h)));
    bad_scalar += bits_of(Half::to_float(static_cast<uint16_t>(h))) != want;
    bad_kernel += bits_of(kernel[h]) != want;
  }
  EXPECT_EQ(bad_scalar, 0);
  EXPECT_EQ(bad_kernel, 0);
}

TEST(HalfConversion, FloatToHalfAndBFloat16AroundEveryTie) {
  std::vector<float> values = boundary_floats();
  const Tensor t = from_blob(values.data(), {static_cast<int64_t>(values.size())}, kFloat);
  const Tensor h = t.to(kHalf).contiguous();
  const Tensor b = t.to(kBFloat16).contiguous();
  const Half* hk = h.data_ptr<Half>();
  const BFloat16* bk = b.data_ptr<BFloat16>();
  int bad[4] = {};
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t want_h = ref_half_from_float(values[i]);
    const uint16_t want_b = ref_bf16_from_float(values[i]);
    bad[0] += Half::from_float(values[i]) != want_h;
    bad[1] += hk[i].x != want_h;
    bad[2] += BFloat16::from_float(values[i]) != want_b;
    bad[3] += bk[i].x != want_b;
  }
  EXPECT_EQ(bad[0], 0) << "Half::from_float";
  EXPECT_EQ(bad[1], 0) << "to(kHalf) kernel";
  EXPECT_EQ(bad[2], 0) << "BFloat16::from_float";
  EXPECT_EQ(bad[3], 0) << "to(kBFloat16) kernel";
}

}  // namespace
