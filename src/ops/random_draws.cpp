#include "src/ops/random_draws.h"

#include <cmath>
#include <type_traits>

#include "ember/ops/factory.h"
#include "src/core/check.h"

namespace ember::detail {

double uniform01(Generator& gen, ScalarType dtype) {
  switch (dtype) {
    case kDouble:
      return gen.next_double();
    case kHalf:
      return static_cast<double>(gen.next_u32() & ((1u << 11) - 1)) * 0x1.0p-11;
    case kBFloat16:
      return static_cast<double>(gen.next_u32() & ((1u << 8) - 1)) * 0x1.0p-8;
    default:
      return static_cast<double>(gen.next_float());
  }
}

namespace {

constexpr double kPi = 3.14159265358979323846;

// Box-Muller over one block of 16 uniforms, pairing element j with j + 8, rounded where ATen's
// normal_fill_16 rounds: at each stored T, and for bfloat16 after every operation too (c10's
// BFloat16 operators and std:: math overloads return BFloat16; Half's math runs in float). Acc is
// the type the arithmetic runs in.
template <class T, class Acc>
void normal_fill_16(T* data, Acc mean, Acc std) {
  auto op = [](Acc v) -> Acc {
    if constexpr (std::is_same_v<T, BFloat16>) return static_cast<Acc>(static_cast<T>(v));
    return v;
  };
  for (int j = 0; j < 8; ++j) {
    const T u1 = static_cast<T>(Acc(1) - static_cast<Acc>(data[j]));  // (0, 1] for the log
    const T u2 = data[j + 8];
    const T radius = static_cast<T>(std::sqrt(op(Acc(-2) * op(std::log(static_cast<Acc>(u1))))));
    // float32: ATen's AVX2 path multiplies by 2pi in float; the others in double.
    const T theta = std::is_same_v<T, float>
                        ? static_cast<T>(static_cast<float>(2 * kPi) * static_cast<float>(u2))
                        : static_cast<T>(2 * kPi * static_cast<double>(u2));
    const Acc cos_theta = op(std::cos(static_cast<Acc>(theta)));
    const Acc sin_theta = op(std::sin(static_cast<Acc>(theta)));
    data[j] = static_cast<T>(op(op(static_cast<Acc>(radius) * cos_theta) * std) + mean);
    data[j + 8] = static_cast<T>(op(op(static_cast<Acc>(radius) * sin_theta) * std) + mean);
  }
}

template <class T, class Acc>
void normal_fill(T* data, int64_t n, double mean, double std, Generator& gen, ScalarType dtype) {
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(uniform01(gen, dtype));
  const Acc m = static_cast<Acc>(static_cast<T>(mean)), s = static_cast<Acc>(static_cast<T>(std));
  for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16<T, Acc>(data + i, m, s);
  if (n % 16 != 0) {
    // ATen redraws the last 16 uniforms and recomputes them, overwriting part of the last block.
    T* last = data + n - 16;
    for (int j = 0; j < 16; ++j) last[j] = static_cast<T>(uniform01(gen, dtype));
    normal_fill_16<T, Acc>(last, m, s);
  }
}

// Fewer than 16 values, or a strided target: ATen's normal_distribution<double>, one value at a
// time (the generator caches the second value of each Box-Muller pair).
template <class T>
void normal_one_by_one(T* data, int64_t n, double mean, double std, Generator& gen) {
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(gen.next_normal() * std + mean);
}

template <class T, class Acc>
void fill_normal(const Tensor& host, double mean, double std, Generator& gen, bool blocks) {
  T* data = static_cast<T*>(host.data_ptr());
  const int64_t n = host.numel();
  if (blocks && n >= 16)
    normal_fill<T, Acc>(data, n, mean, std, gen, host.scalar_type());
  else
    normal_one_by_one(data, n, mean, std, gen);
}

}  // namespace

Tensor host_normal(IntArrayRef size, ScalarType dtype, double mean, double std, Generator& gen,
                   bool blocks) {
  Tensor host = empty(size, TensorOptions().dtype(dtype));
  switch (dtype) {
    case kFloat:
      fill_normal<float, float>(host, mean, std, gen, blocks);
      break;
    case kDouble:
      fill_normal<double, double>(host, mean, std, gen, blocks);
      break;
    case kHalf:
      fill_normal<Half, float>(host, mean, std, gen, blocks);
      break;
    case kBFloat16:
      fill_normal<BFloat16, float>(host, mean, std, gen, blocks);
      break;
    default:
      EMBER_CHECK_TYPE(false, "normal: expected a floating point dtype, got {}", dtype);
  }
  return host;
}

}  // namespace ember::detail
